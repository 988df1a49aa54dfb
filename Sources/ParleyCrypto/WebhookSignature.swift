import Foundation
/// Twilio's `X-Twilio-Signature` webhook signature, computed exactly as the `twilio` library's
/// `RequestValidator` does: HMAC-SHA1 keyed with the account auth token over the full URL followed
/// by each POST parameter's name and value, names sorted, and for a repeated name its distinct
/// values sorted; the MAC in standard base64 (RFC 4648 §4). Sorting is by Unicode code point, as
/// Python sorts strings (never Swift's canonical-equivalence order). Requests with a JSON body sign
/// the URL alone, and the URL carries `bodySHA256`, the hex SHA-256 of the body.
public enum WebhookSignature {
    /// The HTTP header that carries the signature.
    public static let headerName = "X-Twilio-Signature"

    /// The signature of a form-encoded request to `url` with `parameters` (the decoded POST body;
    /// empty for GET, whose parameters are already in the URL).
    public static func compute(url: String, parameters: [(String, String)], authToken: String) -> String {
        var message = Array(url.utf8)
        for (name, values) in sortedParameters(parameters) {
            for value in values {
                message += name
                message += value
            }
        }
        return standardBase64(HMAC.sha1(key: Array(authToken.utf8), message: message))
    }

    /// Whether `signature` is valid for the request, accepting the URL as given, without its port,
    /// and with the scheme's default port added, as `RequestValidator.validate` does (the port
    /// Twilio signs with has varied). The comparison is constant-time.
    public static func validate(signature: String, url: String, parameters: [(String, String)], authToken: String) -> Bool {
        let given = Array(signature.utf8)
        var valid = false
        for candidate in urlVariants(url) {
            // Check every variant so the time does not depend on which one matched.
            let expected = compute(url: candidate, parameters: parameters, authToken: authToken)
            valid = ConstantTime.equals(Array(expected.utf8), given) || valid
        }
        return valid
    }

    /// Validates a request with a JSON (or other non-form) body: the URL must carry `bodySHA256`
    /// matching `body`, and the signature covers the URL alone.
    public static func validate(signature: String, url: String, body: some Collection<UInt8>, authToken: String) -> Bool {
        guard let expected = queryValue("bodySHA256", in: url) else { return false }
        let hashMatches = ConstantTime.equals(Array(bodySHA256(body).utf8), Array(expected.utf8))
        let signatureMatches = validate(signature: signature, url: url, parameters: [], authToken: authToken)
        return hashMatches && signatureMatches
    }

    /// The lowercase hex SHA-256 of a request body, the value of the `bodySHA256` query parameter.
    public static func bodySHA256(_ body: some Collection<UInt8>) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in Digest.sha256(body) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `url` with `bodySHA256=<hex>` appended to its query (before any fragment): the URL to request,
    /// and to sign, when sending `body` as JSON.
    public static func url(_ url: String, addingBodySHA256Of body: some Collection<UInt8>) -> String {
        let hash = "bodySHA256=" + bodySHA256(body)
        let (base, fragment) = split(url, at: "#")
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + hash + (fragment.map { "#" + $0 } ?? "")
    }

    // MARK: - Internals

    /// Names sorted by code point, each with its distinct values sorted by code point (as UTF-8,
    /// whose byte order is code-point order).
    static func sortedParameters(_ parameters: [(String, String)]) -> [(name: [UInt8], values: [[UInt8]])] {
        var byName: [[UInt8]: Set<[UInt8]>] = [:]
        for (name, value) in parameters { byName[Array(name.utf8), default: []].insert(Array(value.utf8)) }
        let precedes: ([UInt8], [UInt8]) -> Bool = { $0.lexicographicallyPrecedes($1) }
        return byName.keys.sorted(by: precedes).map { name in (name, (byName[name] ?? []).sorted(by: precedes)) }
    }

    /// The URL as given, without a port, and with the default port (443 for https, else 80).
    static func urlVariants(_ url: String) -> [String] {
        guard let schemeEnd = url.range(of: "://") else { return [url] }
        let authorityStart = schemeEnd.upperBound
        let rest = url[authorityStart...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        let authority = url[authorityStart..<authorityEnd]
        let prefix = url[..<authorityStart], suffix = url[authorityEnd...]
        // The port follows the last ":" after any userinfo and outside an IPv6 literal.
        let hostPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        var variants = [url]
        if let colon = hostPort.lastIndex(of: ":"), !hostPort[colon...].contains("]") {
            let port = hostPort[hostPort.index(after: colon)...]
            if !port.isEmpty, port.allSatisfy(\.isNumber) {
                variants.append(String(prefix) + String(authority[..<colon]) + String(suffix))
            }
        } else {
            let port = url[..<schemeEnd.lowerBound].lowercased() == "https" ? "443" : "80"
            variants.append(String(prefix) + String(authority) + ":" + port + String(suffix))
        }
        return variants
    }

    static func queryValue(_ name: String, in url: String) -> String? {
        let (base, _) = split(url, at: "#")
        let (_, query) = split(base, at: "?")
        for pair in (query ?? "").split(separator: "&") where pair.hasPrefix(name + "=") {
            return String(pair.dropFirst(name.count + 1))
        }
        return nil
    }

    private static func split(_ text: String, at separator: Character) -> (String, String?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (String(text[..<index]), String(text[text.index(after: index)...]))
    }

    /// Standard padded base64 (RFC 4648 §4) from the base64url encoder.
    static func standardBase64(_ bytes: [UInt8]) -> String {
        var text = Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 }
        while text.count % 4 != 0 { text.append("=") }
        return String(text)
    }
}
