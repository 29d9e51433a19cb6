# What the activation set: the host's script first, then the build's (stacked).
mkdir -p "$PREFIX/share/sf-act"
printf '%s|%s|%s\n' "${SF_ACT_SEEN-}" "${SF_ACT_BUILD_PREFIX-}" "${SF_ACT_HOST-}" > "$PREFIX/share/sf-act/seen.txt"
printf '%s\n' "$BUILD_PREFIX" >> "$PREFIX/share/sf-act/seen.txt"
printf 'seen: %s\n' "$(head -n 1 "$PREFIX/share/sf-act/seen.txt")"
