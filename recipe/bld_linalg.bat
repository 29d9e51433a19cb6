@echo on
copy build\bin\torch_cuda_linalg.dll "%LIBRARY_BIN%\"
if errorlevel 1 exit 1
