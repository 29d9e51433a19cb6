#!/bin/bash
# gxx_linux-64: the host's g++ driver as x86_64-conda-linux-gnu-g++, and
# activate-g++.sh's CXX and CXXFLAGS (gcc 8-10 keep -std=c++17).
set -euo pipefail
t=x86_64-conda-linux-gnu
mkdir -p "$PREFIX/bin" "$PREFIX/etc/conda/activate.d"
cp "$(readlink -f "$(command -v g++)")" "$PREFIX/bin/$t-g++"
ln -s "$t-g++" "$PREFIX/bin/$t-c++"
std=''
case ${PKG_VERSION%%.*} in 8|9|10) std='-std=c++17 ' ;; esac
cat > "$PREFIX/etc/conda/activate.d/activate-gxx_linux-64.sh" <<ACT
export CXX="\$CONDA_PREFIX/bin/$t-c++" GXX="\$CONDA_PREFIX/bin/$t-g++" CXX_FOR_BUILD="\$CONDA_PREFIX/bin/$t-c++"
export CXXFLAGS="-fvisibility-inlines-hidden ${std}-fmessage-length=0 -march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -isystem \${PREFIX}/include\${CXXFLAGS:+ \$CXXFLAGS}"
ACT
