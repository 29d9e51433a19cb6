echo custom
