#!/bin/bash
# conda runs it from the extracted package, before linking: SOURCE_DIR is that.
test -f "$SOURCE_DIR/info/index.json" && echo "$PKG_NAME" > "$PREFIX/pre-link-ran"
