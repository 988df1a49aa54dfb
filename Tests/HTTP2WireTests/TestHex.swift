import HTTP2Wire

/// Hex dumps as the RFCs print them ("8286 8441 …"); spaces and newlines are ignored.
func hex(_ text: String) -> [UInt8] {
    let digits = text.filter(\.isHexDigit)
    var out: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        out.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return out
}

/// Name/value pairs, to compare decoded fields without their indexing mode.
func pairs(_ fields: [HPACKHeaderField]) -> [String] { fields.map { "\($0.name): \($0.value)" } }
