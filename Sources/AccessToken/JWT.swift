import JSONWire
import ParleyCore
import ParleyCrypto

/// The JOSE header of a JWS (RFC 7515 §4), with the members Twilio's tokens use picked out.
///
/// A member that is absent or not a string is `nil`; whether that is acceptable is the verifier's
/// policy, not the parser's.
public struct JWTHeader: Sendable, Equatable {
    /// `alg` (RFC 7515 §4.1.1); Twilio tokens use `HS256`.
    public let alg: String?
    /// `typ` (RFC 7515 §4.1.9); `JWT`.
    public let typ: String?
    /// `cty` (RFC 7515 §4.1.10); `twilio-fpa;v=1` for Twilio access tokens.
    public let cty: String?
    /// `twr`: the Twilio region (e.g. `au1`), when the token was minted for one.
    public let twr: String?
    /// The whole header object.
    public let json: JSONObject

    public init(json: JSONObject) {
        self.json = json
        alg = json["alg"]?.stringValue
        typ = json["typ"]?.stringValue
        cty = json["cty"]?.stringValue
        twr = json["twr"]?.stringValue
    }
}

/// A JWS in compact serialisation (RFC 7515 §7.1), split and decoded but not verified.
public struct ParsedJWT: Sendable, Equatable {
    public let header: JWTHeader
    /// The claims set (RFC 7519 §4): always a JSON object.
    public let claims: JSONObject
    /// `BASE64URL(header) || '.' || BASE64URL(payload)`, the bytes the signature covers (RFC 7515 §5.1).
    public let signingInput: [UInt8]
    /// The decoded signature bytes (may be empty; the verifier rejects that).
    public let signature: [UInt8]
}

/// Pure JWT parsing: no crypto, no clock, no I/O. Safe to call on arbitrary input (fuzzed).
public enum JWT {
    /// The longest token accepted, in UTF-8 bytes. Real access tokens are well under 2 KB.
    public static let maxTokenLength = 16 * 1024
    /// The deepest JSON nesting accepted in the header or claims.
    public static let maxJSONDepth = 16

    /// Splits and decodes a compact JWS.
    ///
    /// Throws 20101 (`.accessTokenInvalid`) for anything that is not three strict base64url
    /// segments whose first two decode to JSON objects, or for a token over `maxTokenLength`.
    public static func parse(_ token: String) throws(ParleyError) -> ParsedJWT {
        let bytes = Array(token.utf8)
        guard !bytes.isEmpty else { throw invalid("empty token") }
        guard bytes.count <= maxTokenLength else {
            throw invalid("token is longer than \(maxTokenLength) bytes")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw invalid("expected 3 dot-separated segments, found \(parts.count)") }

        let header = try decodeObject(parts[0], what: "header")
        let claims = try decodeObject(parts[1], what: "payload")
        guard let signature = Base64URL.decode(utf8: parts[2]) else {
            throw invalid("signature is not base64url")
        }
        let signingInput = Array(bytes[bytes.startIndex..<parts[1].endIndex])
        return ParsedJWT(header: JWTHeader(json: header), claims: claims, signingInput: signingInput,
                         signature: signature)
    }

    private static func decodeObject(_ segment: ArraySlice<UInt8>, what: String) throws(ParleyError) -> JSONObject {
        guard let json = Base64URL.decode(utf8: segment) else { throw invalid("\(what) is not base64url") }
        let value: JSONValue
        do {
            value = try JSONValue.parse(json, maxDepth: maxJSONDepth)
        } catch {
            throw invalid("\(what) is not JSON: \(error)")
        }
        guard let object = value.objectValue else { throw invalid("\(what) is not a JSON object") }
        return object
    }

    static func invalid(_ reason: String) -> ParleyError {
        ParleyError(.accessTokenInvalid, reason: reason)
    }
}
