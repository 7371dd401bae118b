// CPCSCLite has no code of its own: it is libpcsclite's headers (include/shim.h) and library.
