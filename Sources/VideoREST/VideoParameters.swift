import HTTPWire
import JSONWire
import PlatformCore

/// One request's parameters: the query, plus the `application/x-www-form-urlencoded` body
/// (bounded by `FormURLEncoding`'s limits). The first value of a repeated name wins.
struct VideoParameters {
    let pairs: [(name: String, value: String)]

    init(_ request: HTTPRequest) throws(RESTFailure) {
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

    subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// Every value of `name`, in order (`VideoCodecs`).
    func values(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }
}

/// Video v1 paging: `PageSize` (default 50, at most 1000), `Page` (from 0), `PageToken`
/// (`PA<offset>`, which wins over `Page`); the envelope's `meta` as the `twilio` library reads it.
struct VideoPaging {
    var pageSize = 50
    var page = 0
    var offset = 0

    init(_ parameters: VideoParameters) throws(RESTFailure) {
        if let text = parameters["PageSize"] {
            guard let n = Int(text), n >= 1 else { throw .invalidParameter("PageSize must be a positive integer, got \(text)") }
            pageSize = min(n, 1000)
        }
        if let text = parameters["Page"] {
            guard let n = Int(text), n >= 0, n <= 1_000_000 else { throw .invalidParameter("Page must be an integer ≥ 0, got \(text)") }
            page = n
        }
        offset = page * pageSize
        if let token = parameters["PageToken"], !token.isEmpty {
            guard token.hasPrefix("PA"), let n = Int(token.dropFirst(2)), n >= 0, n <= 1_000_000_000 else {
                throw .invalidParameter("PageToken \(token) is not one this server issued")
            }
            offset = n
        }
    }

    /// One page of `all` under `key`, with `meta`; `url` is the list's absolute URL, `filters` repeated in each page URL.
    func envelope(key: String, all: [JSONValue], url: String, filters: [(String, String)]) -> JSONValue {
        let start = min(offset, all.count)
        let end = min(start + pageSize, all.count)
        func pageURL(_ page: Int, _ offset: Int?) -> String {
            var query = filters + [("PageSize", String(pageSize)), ("Page", String(page))]
            if let offset { query.append(("PageToken", "PA\(offset)")) }
            return url + "?" + FormURLEncoding.encode(query)
        }
        let meta: JSONObject = [
            "page": .integer(Int64(page)),
            "page_size": .integer(Int64(pageSize)),
            "first_page_url": .string(pageURL(0, nil)),
            "previous_page_url": page > 0 ? .string(pageURL(page - 1, max(offset - pageSize, 0))) : .null,
            "url": .string(pageURL(page, offset == page * pageSize ? nil : offset)),
            "next_page_url": end < all.count ? .string(pageURL(page + 1, end)) : .null,
            "key": .string(key),
        ]
        return .object([key: .array(Array(all[start..<end])), "meta": .object(meta)])
    }
}
