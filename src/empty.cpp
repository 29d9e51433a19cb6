// Translation unit for a stage that has no sources yet.
