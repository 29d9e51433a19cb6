@echo on
:: One script for every stage (see build.sh); the v0 recipe's scripts do the work.
set "V0=%RECIPE_DIR%\..\recipe"
if "%PYTORCH_BUILD_STAGE%"=="build" call "%V0%\bld.bat"
if "%PYTORCH_BUILD_STAGE%"=="libtorch" call "%V0%\bld_libtorch.bat"
if "%PYTORCH_BUILD_STAGE%"=="linalg" call "%V0%\bld_linalg.bat"
if "%PYTORCH_BUILD_STAGE%"=="pytorch" call "%V0%\bld_pytorch.bat"
if errorlevel 1 exit 1
