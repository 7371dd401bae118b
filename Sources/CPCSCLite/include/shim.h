// Umbrella header for libpcsclite (Linux: Debian libpcsclite-dev; macOS: pkg-config libpcsclite).
#ifndef CPCSCLITE_SHIM_H
#define CPCSCLITE_SHIM_H
#include <PCSC/winscard.h>
#include <PCSC/wintypes.h>
#include <PCSC/pcsclite.h>

// MAX_BUFFER_SIZE_EXTENDED is an expression macro ((1<<16) and sums), which Swift does not
// import; the receive buffer for extended APDUs is sized from this constant instead.
static const unsigned long CPCSCLite_MAX_BUFFER_SIZE_EXTENDED = MAX_BUFFER_SIZE_EXTENDED;
#endif
