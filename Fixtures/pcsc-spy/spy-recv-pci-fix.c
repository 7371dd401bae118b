/*
 * Works around a crash of Debian 12's libpcscspy.so.0 (pcsc-lite 1.9.9): its SCardTransmit
 * logs *pioRecvPci without checking for NULL, and pyscard (so python-fido2) passes NULL, so
 * the spied application dies with SIGSEGV on its first APDU (LudovicRousseau/PCSC issue #159).
 *
 * Built as a library named libpcsclite.so.1 that depends on libpcscspy.so.0: an application
 * that dlopen()s libpcsclite.so.1 finds SCardTransmit here and every other PC/SC symbol in the
 * spy. This SCardTransmit only replaces a NULL pioRecvPci with a scratch structure, then calls
 * the spy's, which logs and forwards to the real library (libpcsclite_nospy.so.1).
 * The bytes sent and received are untouched.
 *
 *   gcc -shared -fPIC -o libpcsclite.so.1 spy-recv-pci-fix.c \
 *       $(pkg-config --cflags libpcsclite) -l:libpcscspy.so.0 -ldl
 */
#include <dlfcn.h>
#include <stddef.h>
#include <PCSC/winscard.h>

typedef LONG (*transmit_function)(SCARDHANDLE, const SCARD_IO_REQUEST *, LPCBYTE, DWORD,
                                  SCARD_IO_REQUEST *, LPBYTE, LPDWORD);

LONG SCardTransmit(SCARDHANDLE hCard, const SCARD_IO_REQUEST *pioSendPci, LPCBYTE pbSendBuffer,
                   DWORD cbSendLength, SCARD_IO_REQUEST *pioRecvPci, LPBYTE pbRecvBuffer,
                   LPDWORD pcbRecvLength)
{
    static transmit_function spy_transmit;
    SCARD_IO_REQUEST scratch = { 0, sizeof(SCARD_IO_REQUEST) };

    if (spy_transmit == NULL) {
        void *spy = dlopen("libpcscspy.so.0", RTLD_NOW | RTLD_NOLOAD);
        if (spy == NULL)
            return SCARD_F_INTERNAL_ERROR;
        spy_transmit = (transmit_function)dlsym(spy, "SCardTransmit");
        if (spy_transmit == NULL)
            return SCARD_F_INTERNAL_ERROR;
    }
    return spy_transmit(hCard, pioSendPci, pbSendBuffer, cbSendLength,
                        pioRecvPci != NULL ? pioRecvPci : &scratch, pbRecvBuffer, pcbRecvLength);
}
