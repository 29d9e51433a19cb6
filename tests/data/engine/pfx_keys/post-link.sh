#!/bin/bash
echo "$PREFIX $PKG_NAME $PKG_VERSION $PKG_BUILDNUM" > "$PREFIX/post-link-ran"
