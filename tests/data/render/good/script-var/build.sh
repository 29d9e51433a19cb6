#!/bin/bash
echo "${feature_a}"
echo $feature_b and more
