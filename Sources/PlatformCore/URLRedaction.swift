import Foundation
/// URLs as logs and error reasons may show them: no query, fragment or user info (they can carry
/// secrets), at most 200 characters.
package enum URLRedaction {
    package static func redacted(_ url: String) -> String {
        var text = Substring(url)
        if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<query] }
        if let schemeEnd = text.range(of: "://"),
           let at = text[schemeEnd.upperBound...].prefix(while: { $0 != "/" }).lastIndex(of: "@") {
            text = text[..<schemeEnd.upperBound] + text[text.index(after: at)...]
        }
        return String(text.prefix(200))
    }
}
