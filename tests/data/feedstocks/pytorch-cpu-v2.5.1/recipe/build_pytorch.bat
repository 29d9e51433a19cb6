call %RECIPE_DIR%\bld.bat
