/// A small, strict, non-validating XML 1.0 reader (W3C XML 1.0, 5th edition) for TwiML documents.
///
/// It accepts the XML declaration, comments, processing instructions (skipped), CDATA sections,
/// the five predefined entities and character references, and attributes in single or double
/// quotes. It refuses DOCTYPE declarations (so no entity expansion), invalid UTF-8, characters
/// outside the XML `Char` production, and anything not well-formed, with the byte offset. Line ends
/// are normalized (§2.11) and attribute whitespace is normalized (§3.3.3). It never traps.
public struct XMLReader: Sendable {
    /// An element with its attributes (in document order) and children. Comments and processing
    /// instructions are dropped; adjacent text and CDATA merge into one text node.
    public struct Element: Sendable, Hashable {
        public var name: String
        public var attributes: [Attribute]
        public var children: [Node]
        /// Byte offset of the element's `<` in the document.
        public var offset: Int

        public init(name: String, attributes: [Attribute] = [], children: [Node] = [], offset: Int = 0) {
            self.name = name
            self.attributes = attributes
            self.children = children
            self.offset = offset
        }

        /// The value of the attribute named `name`, if present.
        public func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }

        /// The child elements, in order.
        public var elements: [Element] {
            children.compactMap { if case .element(let e) = $0 { e } else { nil } }
        }

        /// The direct text content (child elements' text excluded).
        public var text: String {
            children.reduce(into: "") { if case .text(let t) = $1 { $0 += t } }
        }
    }

    /// One attribute: `name="value"` with references decoded.
    public struct Attribute: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A child of an element.
    public enum Node: Sendable, Hashable {
        case element(Element)
        case text(String)
    }

    let bytes: [UInt8]
    let limits: TwiMLLimits
    var position = 0
    var elementCount = 0

    init(bytes: [UInt8], limits: TwiMLLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// Parses a whole document and returns its root element.
    public static func parse(_ document: some Collection<UInt8>, limits: TwiMLLimits = TwiMLLimits())
        throws(TwiMLError) -> Element {
        guard document.count <= limits.maxDocumentBytes else {
            throw .limit("document is larger than \(limits.maxDocumentBytes) bytes", at: limits.maxDocumentBytes)
        }
        var reader = XMLReader(bytes: Array(document), limits: limits)
        return try reader.parseDocument()
    }

    /// Parses a whole document given as text.
    public static func parse(_ document: String, limits: TwiMLLimits = TwiMLLimits()) throws(TwiMLError) -> Element {
        try parse(Array(document.utf8), limits: limits)
    }

    // MARK: - Document (§2.1, §2.8)

    mutating func parseDocument() throws(TwiMLError) -> Element {
        if starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }  // UTF-8 byte order mark (§4.3.3)
        try Self.validateCharacters(bytes, from: position)
        if starts(with: "<?xml"), position + 5 < bytes.count,
           bytes[position + 5] == UInt8(ascii: "?") || isSpace(bytes[position + 5]) {
            try parseXMLDeclaration()
        }
        try skipMisc()
        guard position < bytes.count else { throw .malformed("the document has no root element", at: position) }
        if starts(with: "<!DOCTYPE") { throw .malformed("DOCTYPE declarations are not allowed", at: position) }
        guard bytes[position] == UInt8(ascii: "<") else { throw .malformed("expected the root element", at: position) }
        let root = try parseElement(depth: 1)
        try skipMisc()
        guard position == bytes.count else { throw .malformed("content after the root element", at: position) }
        return root
    }

    /// Skips whitespace, comments and processing instructions (the `Misc` production).
    mutating func skipMisc() throws(TwiMLError) {
        while true {
            skipSpaces()
            if starts(with: "<!--") {
                try skipComment()
            } else if starts(with: "<?") {
                try skipProcessingInstruction()
            } else {
                return
            }
        }
    }

    // MARK: - Elements (§3.1)

    mutating func parseElement(depth: Int) throws(TwiMLError) -> Element {
        let start = position
        guard depth <= limits.maxDepth else { throw .limit("elements nest deeper than \(limits.maxDepth)", at: start) }
        elementCount += 1
        guard elementCount <= limits.maxElements else { throw .limit("more than \(limits.maxElements) elements", at: start) }
        position += 1  // "<"
        let name = try parseName()
        var element = Element(name: name, offset: start)
        if try parseAttributes(of: &element) { return element }
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else { throw .malformed("element <\(name)> is not closed", at: start) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") {
                if starts(with: "</") {
                    flush(&text, into: &element)
                    try parseEndTag(of: name, openedAt: start)
                    return element
                } else if starts(with: "<!--") {
                    try skipComment()
                } else if starts(with: "<![CDATA[") {
                    try readCDATA(into: &text)
                } else if starts(with: "<?") {
                    try skipProcessingInstruction()
                } else if starts(with: "<!") {
                    throw .malformed("unexpected markup declaration inside <\(name)>", at: position)
                } else {
                    flush(&text, into: &element)
                    element.children.append(.element(try parseElement(depth: depth + 1)))
                }
            } else if byte == UInt8(ascii: "&") {
                try readReference(into: &text)
            } else if byte == UInt8(ascii: "]") && starts(with: "]]>") {
                throw .malformed("']]>' is not allowed in text", at: position)
            } else {
                appendNormalizingLineEnd(into: &text)
            }
            guard text.count <= limits.maxTextBytes else {
                throw .limit("text inside <\(name)> is longer than \(limits.maxTextBytes) bytes", at: position)
            }
        }
    }

    /// Reads attributes up to `>` or `/>`; returns true for an empty-element tag (`/>`).
    mutating func parseAttributes(of element: inout Element) throws(TwiMLError) -> Bool {
        while true {
            let hadSpace = skipSpaces()
            guard position < bytes.count else { throw .malformed("tag <\(element.name)> is not closed", at: element.offset) }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                return false
            }
            if starts(with: "/>") {
                position += 2
                return true
            }
            guard hadSpace else { throw .malformed("expected whitespace, '>' or '/>' in tag <\(element.name)>", at: position) }
            let attributeStart = position
            let name = try parseName()
            skipSpaces()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                throw .malformed("attribute \(name) has no '=' and value", at: position)
            }
            position += 1
            skipSpaces()
            let value = try parseAttributeValue(named: name)
            guard !element.attributes.contains(where: { $0.name == name }) else {
                throw .malformed("attribute \(name) appears twice", at: attributeStart)
            }
            guard element.attributes.count < limits.maxAttributesPerElement else {
                throw .limit("more than \(limits.maxAttributesPerElement) attributes on <\(element.name)>", at: attributeStart)
            }
            element.attributes.append(Attribute(name: name, value: value))
        }
    }

    /// A quoted attribute value with references decoded and whitespace normalized (§3.3.3).
    mutating func parseAttributeValue(named name: String) throws(TwiMLError) -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
            throw .malformed("the value of attribute \(name) must be quoted", at: position)
        }
        let quote = bytes[position]
        let start = position
        position += 1
        var value: [UInt8] = []
        while true {
            guard position < bytes.count else { throw .malformed("the value of attribute \(name) is not closed", at: start) }
            let byte = bytes[position]
            if byte == quote {
                position += 1
                return String(decoding: value, as: UTF8.self)
            } else if byte == UInt8(ascii: "<") {
                throw .malformed("'<' is not allowed in the value of attribute \(name)", at: position)
            } else if byte == UInt8(ascii: "&") {
                try readReference(into: &value)
            } else if byte == 0x0D || byte == 0x0A || byte == 0x09 {
                if byte == 0x0D, position + 1 < bytes.count, bytes[position + 1] == 0x0A { position += 1 }
                value.append(0x20)
                position += 1
            } else {
                value.append(byte)
                position += 1
            }
            guard value.count <= limits.maxTextBytes else {
                throw .limit("the value of attribute \(name) is longer than \(limits.maxTextBytes) bytes", at: start)
            }
        }
    }

    mutating func parseEndTag(of name: String, openedAt start: Int) throws(TwiMLError) {
        let endStart = position
        position += 2  // "</"
        let endName = try parseName()
        guard endName == name else {
            throw .malformed("</\(endName)> does not close <\(name)> (opened at byte \(start))", at: endStart)
        }
        skipSpaces()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else {
            throw .malformed("end tag </\(name)> is not closed", at: endStart)
        }
        position += 1
    }

    func flush(_ text: inout [UInt8], into element: inout Element) {
        guard !text.isEmpty else { return }
        element.children.append(.text(String(decoding: text, as: UTF8.self)))
        text.removeAll(keepingCapacity: true)
    }
}
