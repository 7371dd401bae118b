// Stands in for -I/usr/include/PCSC: pcsclite.h includes <wintypes.h> (see module.modulemap).
#include <PCSC/wintypes.h>
