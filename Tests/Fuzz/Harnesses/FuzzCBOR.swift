import CBOR

// Target `cbor`: the strict CBOR decoder (and the encoder and diagnostic notation behind it).
//
// Properties: decoding never traps; what decodes re-encodes canonically and decodes to the same
// value (encode ∘ decode is idempotent); decodePrefix agrees with decode; no proper prefix of an
// accepted input is accepted (checked for inputs up to 512 bytes).

@_cdecl("LLVMFuzzerInitialize")
public func fuzzCBORInitialize(_ argc: UnsafeMutablePointer<Int32>?,
                  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    fuzzBenchmarkIfAsked(fuzzCBORTestOneInput)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBORTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    let decoded = try? CBORDecoder.decode(input)
    let prefix = try? CBORDecoder.decodePrefix(input[...])

    if let decoded {
        _ = decoded.diagnosticNotation
        let encoded = CBOREncoder.encode(decoded)
        let again: CBORValue
        do {
            again = try CBORDecoder.decode(encoded)
        } catch {
            fuzzCheck(false, "the encoding of a decoded value does not decode: \(error)")
            return 0
        }
        fuzzCheck(again == decoded, "decode(encode(v)) != v")
        fuzzCheck(CBOREncoder.encode(again) == encoded, "encoding is not deterministic")
        fuzzCheck(prefix?.rest.isEmpty == true && prefix?.value == decoded, "decodePrefix disagrees with decode")
        if input.count <= 512 {
            for cut in 0..<input.count {
                fuzzCheck((try? CBORDecoder.decode(Array(input[0..<cut]))) == nil, "a \(cut)-byte prefix decodes too")
            }
        }
    } else if let prefix {
        fuzzCheck(!prefix.rest.isEmpty, "decodePrefix accepts all of an input decode rejects")
    }
    return 0
}
