// Umbrella header for the COpenSSL system-library module.
//
// Pulls in the OpenSSL 3 libcrypto headers used by CardCrypto and defines the
// few static inline helpers needed where the OpenSSL API is a function-like
// macro (Swift imports C functions and simple constant macros, but never
// function-like macros).
#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// BIO_get_mem_data is a function-like macro over BIO_ctrl(BIO_CTRL_INFO),
// which Swift cannot call; this wrapper exposes it as a real function.
static inline long copenssl_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

// EVP_PKEY_KEYPAIR / EVP_PKEY_PUBLIC_KEY are macros built from nested ORs of
// other macros, which the Swift importer rejects ("structure not supported");
// re-export them as plain constants for EVP_PKEY_fromdata's `selection`.
static const int copenssl_EVP_PKEY_KEYPAIR = EVP_PKEY_KEYPAIR;
static const int copenssl_EVP_PKEY_PUBLIC_KEY = EVP_PKEY_PUBLIC_KEY;

#endif // COPENSSL_SHIM_H
