#!/bin/bash
echo ${k_braced}
echo ${ k_braced_space }
echo $k_plain
echo $k_piped|cat
echo "$k_quoted"
echo $k_slash/lib
echo $PREFIX $k_second_on_line
echo ${k_default:-x}
# $k_in_comment
