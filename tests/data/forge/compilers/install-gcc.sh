#!/bin/bash
# gcc_linux-64: the host's gcc driver as the conda toolchain's
# x86_64-conda-linux-gnu-gcc (a copy: the driver finds cc1, as and ld by its
# own paths). binutils stay the host's (they link the host's libbfd).
set -euo pipefail
t=x86_64-conda-linux-gnu
mkdir -p "$PREFIX/bin" "$PREFIX/etc/conda/activate.d"
copy() { cp "$(readlink -f "$(command -v "$1")")" "$PREFIX/bin/$t-$2"; }
copy gcc gcc
ln -s "$t-gcc" "$PREFIX/bin/$t-cc"
for tool in cpp gcc-ar gcc-nm gcc-ranlib; do copy "$tool" "$tool"; done
# A driver away from its install prefix looks for cc1 & co. below
# GCC_EXEC_PREFIX: the host's (/usr/lib/gcc/).
cc1=$(gcc -print-prog-name=cc1)
exec_prefix=${cc1%/*/*/cc1}/
# As activate-gcc.sh sets them for a conda-build build (linux-64); the
# flags go before what the environment holds.
{ echo "export GCC_EXEC_PREFIX=$exec_prefix"; cat <<'ACT'
t=x86_64-conda-linux-gnu
export HOST=$t BUILD=$t CONDA_TOOLCHAIN_HOST=$t CONDA_TOOLCHAIN_BUILD=$t host_alias=$t build_alias=$t
export CONDA_BUILD_CROSS_COMPILATION=""
export CC="$CONDA_PREFIX/bin/$t-cc" CC_FOR_BUILD="$CONDA_PREFIX/bin/$t-cc" GCC="$CONDA_PREFIX/bin/$t-gcc"
export CPP="$CONDA_PREFIX/bin/$t-cpp" CPP_FOR_BUILD="$CONDA_PREFIX/bin/$t-cpp"
export GCC_AR="$CONDA_PREFIX/bin/$t-gcc-ar" GCC_NM="$CONDA_PREFIX/bin/$t-gcc-nm" GCC_RANLIB="$CONDA_PREFIX/bin/$t-gcc-ranlib"
export CPPFLAGS="-DNDEBUG -D_FORTIFY_SOURCE=2 -O2 -isystem ${PREFIX}/include${CPPFLAGS:+ $CPPFLAGS}"
export CFLAGS="-march=nocona -mtune=haswell -ftree-vectorize -fPIC -fstack-protector-strong -fno-plt -O2 -ffunction-sections -pipe -isystem ${PREFIX}/include${CFLAGS:+ $CFLAGS}"
export LDFLAGS="-Wl,-O2 -Wl,--sort-common -Wl,--as-needed -Wl,-z,relro -Wl,-z,now -Wl,--disable-new-dtags -Wl,--gc-sections -Wl,--allow-shlib-undefined -Wl,-rpath,${PREFIX}/lib -Wl,-rpath-link,${PREFIX}/lib -L${PREFIX}/lib${LDFLAGS:+ $LDFLAGS}"
export CMAKE_PREFIX_PATH="${PREFIX}${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
ACT
} > "$PREFIX/etc/conda/activate.d/activate-gcc_linux-64.sh"
