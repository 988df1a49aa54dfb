import JSONWire

/// The vendor's v2010 list paging: `PageSize` (default 50, at most 1000), `Page` (from 0) and
/// `PageToken`, which this server writes as `PA<offset>` in `next_page_uri`/`previous_page_uri`
/// and honours over `Page` when present. Shared by the v2010-shaped routers (voice, SIP).
package struct RESTPaging: Equatable {
    package static let defaultPageSize = 50
    package static let maxPageSize = 1000
    /// Offsets beyond this are refused, so page arithmetic never overflows.
    package static let maxOffset = 1_000_000_000

    package var pageSize: Int
    package var page: Int
    /// The first record's index.
    package var offset: Int
    /// The token sent, echoed in `uri`.
    package var token: String?

    package init(pageSize: Int = defaultPageSize, page: Int = 0) {
        self.pageSize = pageSize
        self.page = page
        offset = page * pageSize
    }

    package init(_ parameters: RESTParameters) throws(RESTFailure) {
        var size = Self.defaultPageSize
        if let text = parameters["PageSize"] {
            guard let n = Int(text), n >= 1 else { throw .invalidParameter("PageSize must be a positive integer, got \(text)") }
            size = min(n, Self.maxPageSize)
        }
        var page = 0
        if let text = parameters["Page"] {
            guard let n = Int(text), n >= 0, n <= 1_000_000 else { throw .invalidParameter("Page must be an integer ≥ 0, got \(text)") }
            page = n
        }
        self.init(pageSize: size, page: page)
        if let token = parameters["PageToken"], !token.isEmpty {
            guard token.hasPrefix("PA"), let n = Int(token.dropFirst(2)), n >= 0, n <= Self.maxOffset else {
                throw .invalidParameter("PageToken \(token) is not one this server issued")
            }
            offset = n
            self.token = token
        }
    }

    /// The envelope around one page of `records` under `key` (`calls`, `applications`, …).
    /// `hasMore` says whether a record follows this page; `filters` are repeated in every URI so
    /// that following `next_page_uri` keeps them.
    package func envelope(key: String, records: [JSONValue], hasMore: Bool, path: String,
                  filters: [(String, String)]) -> JSONValue {
        func uri(page: Int, offset: Int?) -> String {
            var query = filters + [("PageSize", String(pageSize)), ("Page", String(page))]
            if let offset { query.append(("PageToken", "PA\(offset)")) }
            return path + "?" + RESTParameters.encodeQuery(query)
        }
        let object: JSONObject = [
            key: .array(records),
            "end": .integer(Int64(offset + max(records.count - 1, 0))),
            "first_page_uri": .string(uri(page: 0, offset: nil)),
            "next_page_uri": hasMore ? .string(uri(page: page + 1, offset: offset + pageSize)) : .null,
            "page": .integer(Int64(page)),
            "page_size": .integer(Int64(pageSize)),
            "previous_page_uri": page > 0 ? .string(uri(page: page - 1, offset: max(offset - pageSize, 0))) : .null,
            "start": .integer(Int64(offset)),
            "uri": .string(uri(page: page, offset: token == nil ? nil : offset)),
        ]
        return .object(object)
    }

    /// One page cut from a complete, ordered list (resources the store returns whole).
    package func slice<T>(_ all: [T]) -> (records: ArraySlice<T>, hasMore: Bool) {
        let start = min(offset, all.count)
        let end = min(start + pageSize, all.count)
        return (all[start..<end], end < all.count)
    }
}
