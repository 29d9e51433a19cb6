echo "refusing to install" >&2
exit 3
