// Umbrella header for libpcsclite (pkg-config libpcsclite, Debian libpcsclite-dev).
#ifndef CPCSCLITE_SHIM_H
#define CPCSCLITE_SHIM_H
#include <PCSC/winscard.h>
#include <PCSC/wintypes.h>
#include <PCSC/pcsclite.h>
#endif
