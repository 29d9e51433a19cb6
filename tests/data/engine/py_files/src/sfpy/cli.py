import sys

from sfpy import main

if __name__ == "__main__":
    sys.exit(main())
