@echo on
cmake --install build --prefix "%LIBRARY_PREFIX%"
if errorlevel 1 exit 1
