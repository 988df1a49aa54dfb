import HTTPWire

/// Feeds bytes to the `application/x-www-form-urlencoded` decoder; whatever decodes must encode
/// and decode back to the same pairs.
enum FormFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        guard let pairs = try? FormURLEncoding.decode(data, limits: FormURLEncoding.Limits(maxBytes: 1 << 20, maxPairs: 4096))
        else { return }
        let encoded = FormURLEncoding.encode(pairs)
        guard let again = try? FormURLEncoding.decode(encoded, limits: FormURLEncoding.Limits(maxBytes: 1 << 24, maxPairs: 4096)),
              again.count == pairs.count, zip(again, pairs).allSatisfy({ $0 == $1 }) else {
            fatalError("form decode -> encode -> decode is unstable")
        }
        let text = String(decoding: data, as: UTF8.self)
        _ = try? FormURLEncoding.queryPairs(of: text)
        _ = FormURLEncoding.url(text, appending: pairs.prefix(4).map { $0 })
    }
}
