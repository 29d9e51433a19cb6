echo never packaged: no output is named sf-pfx-outputs
