"""A tiny module the Python packaging tests build (tests/integration/test_build_python.cpp)."""


def main():
    print("sfpy main ran")
    return 0
