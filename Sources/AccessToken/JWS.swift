import JSONWire
import ParleyCrypto

/// HS256 signing and checking at the JWS level (RFC 7515, RFC 7518 §3.2), with no claim policy.
public enum JWS {
    /// `BASE64URL(header) . BASE64URL(claims)`, serialised compactly in the objects' member order.
    public static func signingInput(header: JSONObject, claims: JSONObject) -> String {
        Base64URL.encode(JSONValue.object(header).serialized()) + "." + Base64URL.encode(JSONValue.object(claims).serialized())
    }

    /// HMAC-SHA256 of the signing input with `key` (RFC 7518 §3.2).
    public static func hs256Signature(signingInput: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        HMAC.sha256(key: key, message: signingInput)
    }

    /// True if `signature` is the HS256 MAC of `signingInput` under `key`. Constant-time compare.
    public static func verifyHS256(signingInput: some Collection<UInt8>, signature: some Collection<UInt8>,
                                   key: some Collection<UInt8>) -> Bool {
        ConstantTime.equals(hs256Signature(signingInput: signingInput, key: key), signature)
    }

    /// A compact HS256 JWS of `header` and `claims`. The header is used as given (callers set `alg`).
    public static func signHS256(header: JSONObject, claims: JSONObject, key: some Collection<UInt8>) -> String {
        let input = signingInput(header: header, claims: claims)
        return input + "." + Base64URL.encode(hs256Signature(signingInput: Array(input.utf8), key: key))
    }
}
