import HTTPWire
import JSONWire
import PlatformCore

/// Video v1 paging: `PageSize` (default 50, at most 1000), `Page` (from 0), `PageToken`
/// (`PA<offset>`, which wins over `Page`); the envelope's `meta` as the `twilio` library reads it.
struct VideoPaging {
    var pageSize = 50
    var page = 0
    var offset = 0

    init(_ parameters: RESTParameters) throws(RESTFailure) {
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

extension VideoRESTRouter {
    /// `DateCreatedAfter` and `DateCreatedBefore` (seconds since the epoch), each also added to
    /// the list's page URL filters.
    static func createdFilters(_ p: RESTParameters, _ filters: inout [(String, String)]) throws(RESTFailure) -> (Int64?, Int64?) {
        var bounds: (after: Int64?, before: Int64?) = (nil, nil)
        for (name, isAfter) in [("DateCreatedAfter", true), ("DateCreatedBefore", false)] {
            guard let text = p[name] else { continue }
            guard let time = RESTTime.parseFilter(text) else { throw .invalidParameter("\(name) is not a date: \(text)") }
            if isAfter { bounds.after = time.seconds } else { bounds.before = time.seconds }
            filters.append((name, text))
        }
        return bounds
    }
}
