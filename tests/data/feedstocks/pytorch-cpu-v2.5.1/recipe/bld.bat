@echo On

call %RECIPE_DIR%\build_common.bat
