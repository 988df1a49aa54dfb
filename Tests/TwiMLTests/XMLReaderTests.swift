import Testing
@testable import TwiML

@Suite struct XMLReaderTests {
    @Test func predefinedEntitiesAndCharacterReferences() throws {
        let root = try XMLReader.parse("<a>&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#x1F600;</a>")
        #expect(root.children == [.text("<>&'\"AB😀")])
    }

    @Test func cdataAndCommentsMergeIntoOneTextNode() throws {
        let root = try XMLReader.parse("<a>x<![CDATA[<b>&amp;]]>y<!-- note -->z</a>")
        #expect(root.children == [.text("x<b>&amp;yz")])
    }

    @Test func prologWithBOMDeclarationCommentsAndProcessingInstructions() throws {
        let document: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <!-- leading comment -->
            <?style type="x"?>
            <Response><?inner pi?></Response>
            <!-- trailing -->
            """.utf8)
        let root = try XMLReader.parse(document)
        #expect(root.name == "Response")
        #expect(root.children.isEmpty)
        #expect(root.offset == 3 + 55 + 1 + 24 + 1 + 19)
    }

    @Test func attributesInBothQuotesWithReferencesAndNormalizedWhitespace() throws {
        let root = try XMLReader.parse("<a one=\"1\"  two = 'it&apos;s \"x\"' three=\"a\tb\r\nc&#10;d\"/>")
        #expect(root.attributes == [
            XMLReader.Attribute(name: "one", value: "1"),
            XMLReader.Attribute(name: "two", value: "it's \"x\""),
            XMLReader.Attribute(name: "three", value: "a b c\nd"),
        ])
        #expect(root.attribute("two") == "it's \"x\"")
        #expect(root.attribute("four") == nil)
    }

    @Test func nestedAndSelfClosingElementsWithLineEndNormalization() throws {
        let root = try XMLReader.parse("<r>\r\n  <a x='1'/>\r<b>t</b >\n</r>")
        #expect(root.children == [
            .text("\n  "),
            .element(XMLReader.Element(name: "a", attributes: [XMLReader.Attribute(name: "x", value: "1")], offset: 7)),
            .text("\n"),
            .element(XMLReader.Element(name: "b", children: [.text("t")], offset: 18)),
            .text("\n"),
        ])
        #expect(root.elements.map(\.name) == ["a", "b"])
        #expect(root.text == "\n  \n\n")
    }

    static let malformed: [(String, String, Int)] = [
        ("", "no root element", 0),
        ("  ", "no root element", 2),
        ("text", "expected the root element", 0),
        ("<a>", "element <a> is not closed", 0),
        ("<a></b>", "</b> does not close <a>", 3),
        ("<a b='1' b='2'/>", "attribute b appears twice", 9),
        ("<a b=1/>", "must be quoted", 5),
        ("<a b/>", "has no '='", 4),
        ("<a b='1'c='2'/>", "expected whitespace", 8),
        ("<a b='<'/>", "'<' is not allowed", 6),
        ("<a b='x/>", "is not closed", 5),
        ("<a>&foo;</a>", "unknown entity &foo;", 3),
        ("<a>&#0;</a>", "invalid character reference", 3),
        ("<a>&#xD800;</a>", "invalid character reference", 3),
        ("<a>&#x110000;</a>", "invalid character reference", 3),
        ("<a>&#12a;</a>", "invalid character reference", 3),
        ("<a>&amp</a>", "must start an entity", 3),
        ("<a>& b</a>", "must start an entity", 3),
        ("<!DOCTYPE a [<!ENTITY x 'y'>]><a/>", "DOCTYPE", 0),
        ("<a/><b/>", "content after the root element", 4),
        ("<a/>text", "content after the root element", 4),
        ("<a><!-- x -- y --></a>", "'--' is not allowed", 10),
        ("<a><!-- x", "comment is not closed", 3),
        ("<a><![CDATA[x</a>", "CDATA section is not closed", 3),
        ("<a>]]></a>", "']]>' is not allowed", 3),
        ("<a><!ELEMENT x></a>", "unexpected markup declaration", 3),
        ("<a>\u{1}</a>", "control character 0x1", 3),
        (" <?xml version='1.0'?><a/>", "only allowed at the very start", 1),
        ("<?xml version='1.0' encoding='ISO-8859-1'?><a/>", "unsupported encoding", 20),
        ("<?xml version='2.0'?><a/>", "unsupported XML version", 6),
        ("<?xml encoding='UTF-8'?><a/>", "unexpected 'encoding'", 6),
        ("<?xml version='1.0' standalone='maybe'?><a/>", "standalone must be yes or no", 20),
        ("<?xml version='1.0'", "malformed XML declaration", 19),
        ("<1a/>", "expected a name", 1),
        ("<a></a >x</a>", "content after the root element", 8),
        ("<a><?pi x", "processing instruction is not closed", 3),
        ("<a><?pi", "malformed processing instruction", 3),
        ("<a></", "expected a name", 5),
        ("<a></a", "end tag </a> is not closed", 3),
    ]

    @Test(arguments: malformed)
    func malformedDocumentsFailWithReasonAndOffset(_ input: String, _ reason: String, _ offset: Int) {
        #expect {
            _ = try XMLReader.parse(input)
        } throws: { error in
            guard let e = error as? TwiMLError else { return false }
            return e.kind == .malformedXML && e.reason.contains(reason) && e.offset == offset
        }
    }

    @Test func invalidUTF8IsRefusedAtItsOffset() {
        let cases: [[UInt8]] = [
            Array("<a>".utf8) + [0xFF] + Array("</a>".utf8),
            Array("<a>".utf8) + [0xC0, 0x80] + Array("</a>".utf8),  // overlong
            Array("<a>".utf8) + [0xED, 0xA0, 0x80] + Array("</a>".utf8),  // surrogate
            Array("<a>".utf8) + [0xE2, 0x82],  // truncated
            Array("<a>".utf8) + [0xEF, 0xBF, 0xBE] + Array("</a>".utf8),  // U+FFFE
        ]
        for bytes in cases {
            #expect(throws: TwiMLError.self) { _ = try XMLReader.parse(bytes) }
            do {
                _ = try XMLReader.parse(bytes)
            } catch {
                #expect(error.kind == .malformedXML && error.offset == 3, "\(error)")
            }
        }
    }

    @Test func limitsAreEnforced() throws {
        func nested(_ depth: Int) -> String { String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth) }
        _ = try XMLReader.parse(nested(16))
        let small = TwiMLLimits(maxDocumentBytes: 64, maxDepth: 3, maxAttributesPerElement: 2, maxTextBytes: 8, maxElements: 4,
                                maxNameBytes: 4)
        let cases: [(String, String)] = [
            (nested(17), "deeper than 16"),
        ]
        for (input, reason) in cases {
            #expect { _ = try XMLReader.parse(input) } throws: { ($0 as? TwiMLError)?.reason.contains(reason) == true }
        }
        let smallCases: [(String, String)] = [
            (String(repeating: " ", count: 60) + "<a/>!", "larger than 64 bytes"),
            (nested(4), "deeper than 3"),
            ("<a x='1' y='2' z='3'/>", "more than 2 attributes"),
            ("<a>123456789</a>", "longer than 8 bytes"),
            ("<a><![CDATA[123456789]]></a>", "longer than 8 bytes"),
            ("<a x='123456789'/>", "longer than 8 bytes"),
            ("<a><b/><b/><b/><b/></a>", "more than 4 elements"),
            ("<abcde/>", "longer than 4 bytes"),
        ]
        for (input, reason) in smallCases {
            #expect { _ = try XMLReader.parse(input, limits: small) } throws: { error in
                guard let e = error as? TwiMLError else { return false }
                return e.kind == .limitExceeded && e.reason.contains(reason)
            }
        }
    }

    /// Every truncation and many byte mutations of a valid document either parse or throw.
    @Test func neverTrapsOnTruncationsAndMutations() {
        let document = Array("""
            <?xml version="1.0"?><Response><Gather numDigits='2'><Say voice="alice">Hi &amp; <![CDATA[bye]]></Say>\
            </Gather><!-- c --><Dial action="/next">&#x61;lice</Dial></Response>
            """.utf8)
        for length in 0...document.count { _ = try? XMLReader.parse(document[..<length]) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let interesting = Array("<>&;#x'\"/![]-?= \r\n".utf8) + [0x00, 0x80, 0xC3, 0xFF]
        for _ in 0..<3000 {
            var mutated = document
            for _ in 0..<3 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let position = Int(state >> 33) % mutated.count
                mutated[position] = interesting[Int(state >> 17) % interesting.count]
            }
            _ = try? TwiMLResponse(parsing: mutated)
        }
    }
}
