import JSONWire
import Foundation
import FoundationXML
import TwiML

/// Our own XML and JSON parsers beside the library each could be replaced with (FoundationXML's
/// `XMLParser` over libxml2; Foundation's `JSONSerialization`), on the inputs the server sees, and
/// what each does with hostile input. `parley-bench libraries`; figures in docs/ARCHITECTURE.md
/// (HTTP/2's comparison, whose own half is gone since HTTP2Client moved onto libnghttp2, is kept there).
enum LibraryBench {
    static func runAll() {
        print("# libraries: own parsers against the libraries (one core, in-process)")
        xml()
        json()
    }

    // MARK: XML (TwiML)

    static let twiml = Array("""
        <?xml version="1.0" encoding="UTF-8"?><Response><Say voice="alice" language="en-US">Welcome to Parley. \
        Please hold while we connect you.</Say><Gather numDigits="1" action="/menu" timeout="5"><Say>Press one \
        for sales, two for support.</Say><Play loop="2">https://example.com/hold.wav</Play></Gather>\
        <Dial callerId="+15551234567" timeout="20" action="/after" record="record-from-answer-dual">\
        <Client><Identity>bob</Identity><Parameter name="topic" value="billing"/></Client></Dial>\
        <Redirect method="POST">/voice/next</Redirect></Response>
        """.utf8)

    /// Billion laughs (entities expanding 10 ways 9 levels deep, ~1 GB if expanded).
    static let laughs: [UInt8] = {
        var doc = "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            doc += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">"
        }
        doc += "]><Response><Say>&lol9;</Say></Response>"
        return Array(doc.utf8)
    }()

    static func xml() {
        measure("TwiML parse, own XMLReader (\(twiml.count) B)", unitBytes: twiml.count) {
            _ = try? XMLReader.parse(twiml)
        }
        let data = Data(twiml)
        measure("TwiML parse, FoundationXML XMLParser to a tree", unitBytes: twiml.count) {
            let builder = TreeBuilder()
            let parser = XMLParser(data: data)
            parser.delegate = builder
            _ = parser.parse()
        }
        // Hostile input: what each does with a DOCTYPE that defines nested entities.
        let start = ContinuousClock.now
        let own: String
        do {
            _ = try XMLReader.parse(laughs)
            own = "accepted"
        } catch {
            own = "refused: \(error)"
        }
        let ownTime = ContinuousClock.now - start
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(laughs))
        parser.delegate = builder
        let libStart = ContinuousClock.now
        let ok = parser.parse()
        let libTime = ContinuousClock.now - libStart
        print("billion laughs: own XMLReader \(own) in \(ownTime); XMLParser \(ok ? "parsed" : "failed (\(parser.parserError.map { "\($0)" } ?? "?"))") "
              + "in \(libTime), \(builder.textBytes) bytes of text delivered")
    }

    /// Builds the element tree a TwiML reader needs, as our reader does.
    final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [(name: String, attributes: [String: String], children: Int)] = []
        var elements = 0
        var textBytes = 0
        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            stack.append((elementName, attributeDict, 0))
        }
        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            _ = stack.popLast()
            elements += 1
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { textBytes += string.utf8.count }
    }

    // MARK: JSON (signaling, REST, Insights)

    static let signaling = Array(#"{"type":"invite","id":"i1","callId":"9F1D5C7E-3B2A-4C1D-8E9F-0A1B2C3D4E5F","to":"bob","params":{"Topic":"billing","Priority":"2"},"sdp":"v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111 0 8 110\r\nc=IN IP4 0.0.0.0\r\na=rtcp-mux\r\na=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\na=fingerprint:sha-256 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF\r\na=setup:actpass\r\na=mid:0\r\na=sendrecv\r\na=rtpmap:111 opus/48000/2\r\n"}"#.utf8)

    static func json() {
        measure("signaling message parse, own JSONValue (\(signaling.count) B)", unitBytes: signaling.count) {
            _ = try? JSONValue.parse(signaling)
        }
        let data = Data(signaling)
        measure("signaling message parse, Foundation JSONSerialization", unitBytes: signaling.count) {
            _ = try? JSONSerialization.jsonObject(with: data)
        }
        // Hostile or ambiguous input each way.
        let duplicate = Array(#"{"type":"hangup","callSid":"CA1","callSid":"CA2"}"#.utf8)
        let deep = Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        for (name, input) in [("duplicate member names", duplicate), ("100,000 nested arrays", deep)] {
            let own: String
            do {
                _ = try JSONValue.parse(input)
                own = "accepted"
            } catch {
                own = "refused (\(error))"
            }
            let library: String
            do {
                let value = try JSONSerialization.jsonObject(with: Data(input))
                library = "accepted" + ((value as? [String: Any])?["callSid"].map { ", callSid = \($0)" } ?? "")
            } catch {
                library = "refused"
            }
            print("\(name): own JSONValue \(own); JSONSerialization \(library)")
        }
    }
}
