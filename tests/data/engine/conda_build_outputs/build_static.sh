#!/bin/bash
test "$TOP_PKG_NAME" = sf-cbo
cp static/libsfcbo.a ${PREFIX}/lib
