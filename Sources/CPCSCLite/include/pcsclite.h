// Stands in for -I/usr/include/PCSC: winscard.h includes <pcsclite.h> (see module.modulemap).
#include <PCSC/pcsclite.h>
