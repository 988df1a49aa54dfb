import HTTPWire
import ParleyCore

/// The parameters of one REST request: the query for GET, the
/// `application/x-www-form-urlencoded` body for POST (the vendor's API takes no JSON bodies).
/// Shared by the v2010 and Video v1 routers. Names are case-sensitive, as the vendor's; the first value of a repeated name wins (`values` has them all).
package struct RESTParameters {
    package private(set) var pairs: [(name: String, value: String)]

    package init(_ pairs: [(name: String, value: String)]) { self.pairs = pairs }

    /// The query items of `request`, plus its form body when it has one.
    package init(_ request: HTTPRequest) throws(RESTFailure) {
        var pairs = request.queryItems
        if !request.body.isEmpty {
            let type = request.headers["Content-Type"]?.lowercased() ?? "application/x-www-form-urlencoded"
            guard type.hasPrefix("application/x-www-form-urlencoded") else {
                throw .invalidParameter("the body must be application/x-www-form-urlencoded, not \(type)")
            }
            do {
                pairs += try FormURLEncoding.decode(request.body).map { (name: $0.0, value: $0.1) }
            } catch {
                throw .invalidParameter("the form body is too large or has too many parameters")
            }
        }
        self.pairs = pairs
    }

    package subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// Every value of `name`, in order (a repeated name such as `StatusCallbackEvent`).
    package func values(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    /// Whether `name` was sent at all (an empty value counts: it clears a field).
    package func contains(_ name: String) -> Bool { pairs.contains { $0.name == name } }

    /// An http(s) URL parameter: nil when absent or empty (which clears it); `code` (400) when malformed.
    package func httpURL(_ name: String, code: ParleyError.Code = .invalidParameter) throws(RESTFailure) -> String? {
        guard let value = self[name], !value.isEmpty else { return nil }
        let lower = value.lowercased()
        let scheme = lower.hasPrefix("https://") ? 8 : lower.hasPrefix("http://") ? 7 : 0
        guard scheme > 0, value.utf8.count <= 4096, value.count > scheme,
              !value.dropFirst(scheme).hasPrefix("/"), !value.contains(where: { $0 == " " || $0.isNewline }) else {
            throw RESTFailure(status: 400, code: code, message: "\(name) is not a valid http(s) URL: \(value)")
        }
        return value
    }

    /// `GET` or `POST` (any case), uppercased; `fallback` when absent or empty; `code` (400) otherwise.
    package func httpMethod(_ name: String, fallback: String, code: ParleyError.Code = .invalidParameter) throws(RESTFailure) -> String {
        guard let value = self[name], !value.isEmpty else { return fallback }
        let upper = value.uppercased()
        guard upper == "GET" || upper == "POST" else {
            throw RESTFailure(status: 400, code: code, message: "\(name) must be GET or POST, got \(value)")
        }
        return upper
    }

    /// `name=value&…`, both encoded (for the page URIs we write).
    package static func encodeQuery(_ pairs: [(String, String)]) -> String { FormURLEncoding.encode(pairs) }
}
