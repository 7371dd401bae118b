import CBOR

extension COSEPublicKey {
    /// A key the card sent; one that is not an EC2 P-256 COSE_Key is a malformed response saying
    /// what is wrong with it (`a COSE key whose curve is not P-256`).
    init(fromCard cbor: CBORValue) throws(CTAPClientError) {
        do throws(COSEKeyError) {
            try self.init(cbor: cbor)
        } catch {
            throw .malformedResponse(error.description)
        }
    }
}
