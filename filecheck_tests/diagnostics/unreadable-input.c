// RUN: not autogpu-opt %S/inputs/latin1.c 2>&1 | filecheck %s --check-prefix=LATIN1
// RUN: not autogpu-opt %S/inputs/no-such-file.c 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not autogpu-opt %S/inputs 2>&1 | filecheck %s --check-prefix=DIRECTORY
// Input that cannot be read as UTF-8 C text is a diagnostic with exit status 1.

// LATIN1-NOT: Traceback
// LATIN1: {{^.*}}latin1.c:2:9: error: not UTF-8 text: invalid byte 0xe9 at byte offset 23
// MISSING: {{^.*}}no-such-file.c: error: no such file
// MISSING-NOT: Traceback
// DIRECTORY: {{^.*}}inputs: error: is a directory, not a source file
// DIRECTORY-NOT: Traceback
