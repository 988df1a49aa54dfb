/// The WHERE clause of a filtered list query, built one condition at a time: column names are the
/// caller's fixed strings, every value is bound (numbered `?n` in order), never spliced in.
struct SQLFilter {
    private(set) var conditions: [String] = []
    private(set) var values: [SQLValue] = []

    /// `column comparison ?n` with `value` bound.
    mutating func add(_ column: String, _ comparison: String, _ value: SQLValue) {
        values.append(value)
        conditions.append("\(column) \(comparison) ?\(values.count)")
    }

    /// `select` filtered, ordered by `order`, one page (`LIMIT`/`OFFSET` bound last).
    func page(_ select: String, orderBy order: String, limit: Int, offset: Int) -> (sql: String, values: [SQLValue]) {
        let all = values + [.integer(Int64(limit)), .integer(Int64(offset))]
        let sql = "\(select) WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) "
            + "LIMIT ?\(all.count - 1) OFFSET ?\(all.count)"
        return (sql, all)
    }
}

extension Array {
    /// Replaces the element that `matches`, or throws `missing`.
    mutating func replace(where matches: (Element) -> Bool, with element: Element,
                          orThrow missing: StoreError) throws(StoreError) {
        guard let i = firstIndex(where: matches) else { throw missing }
        self[i] = element
    }
}
