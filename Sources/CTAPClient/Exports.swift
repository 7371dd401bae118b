// The keys this client hands out and takes (`keyAgreement`, `encapsulate(peer:)`, attested
// credential data) are `COSEPublicKey`s, from the COSE module the card side shares; re-exported so
// that `import CTAPClient` is all a platform needs to use them.
@_exported import COSE
