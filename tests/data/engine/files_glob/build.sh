#!/bin/bash
mkdir -p "$PREFIX/lib" "$PREFIX/include" "$PREFIX/share/doc"
echo lib > "$PREFIX/lib/libsfglob.so"
echo hdr > "$PREFIX/include/sfglob.h"
echo doc > "$PREFIX/share/doc/sfglob.txt"
