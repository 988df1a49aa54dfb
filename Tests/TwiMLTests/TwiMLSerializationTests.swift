import Testing
@testable import TwiML

@Suite struct TwiMLSerializationTests {
    static let everything = TwiMLResponse(verbs: [
        .say(TwiMLSay(text: "Tom & Jerry <3 \"quotes\"\nnext line", voice: "alice", language: "en-US", loop: 2)),
        .play(TwiMLPlay(url: "https://example.com/a.wav?x=1&y=2", loop: 0)),
        .play(TwiMLPlay(digits: "ww12#")),
        .pause(TwiMLPause(length: 3)), .pause(TwiMLPause()),
        .gather(TwiMLGather(numDigits: 3, finishOnKey: "", timeout: 0, action: "/g", method: .get, input: [.dtmf, .speech],
                            actionOnEmptyResult: true,
                            prompts: [.say(TwiMLSay(text: "PIN")), .pause(TwiMLPause(length: 1)), .play(TwiMLPlay(url: "b.wav"))])),
        .gather(TwiMLGather()),
        .record(TwiMLRecord(maxLength: 30, timeout: 2, finishOnKey: "", action: "r", method: .get, playBeep: false,
                            trim: .doNotTrim, recordingStatusCallback: "/rs", recordingStatusCallbackMethod: .get)),
        .record(TwiMLRecord()),
        .dial(TwiMLDial(nouns: [
            .client(TwiMLClient(identity: "bob", parameters: [TwiMLParameter(name: "a b", value: "tab\there\r\n<&>\"'")],
                                url: "/w", method: .get, statusCallback: "/s", statusCallbackMethod: .get,
                                statusCallbackEvents: [.initiated, .completed])),
            .client(TwiMLClient(identity: "carol")),
            .number(TwiMLNumber(number: "+1555", sendDigits: "1w2", byoc: "carrier", url: "/n", method: .get)),
            .sip(TwiMLSip(uri: "sip:x@y", username: "u", password: "", statusCallbackEvents: [.answered])),
        ], action: "/after", method: .get, timeout: 10, callerId: "+1000", answerOnBridge: true,
                        record: .recordFromAnswerDual, hangupOnStar: true, timeLimit: 60, trim: .trimSilence,
                        recordingStatusCallback: "/rc", recordingStatusCallbackMethod: .get)),
        .dial(TwiMLDial(nouns: [.conference(TwiMLConference(
            name: "room", muted: true, beep: "false", startConferenceOnEnter: false, endConferenceOnExit: true, waitUrl: "/hold",
            waitMethod: .get, maxParticipants: 3, record: "record-from-start", statusCallback: "/c", statusCallbackMethod: .get,
            statusCallbackEvents: ["start", "end"], participantLabel: "p"))])),
        .redirect(TwiMLRedirect(url: "/again?a=1&b=2", method: .get)),
        .reject(.busy), .reject(.rejected), .hangup,
    ])

    @Test func everyVerbRoundTrips() throws {
        let xml = Self.everything.xml
        let parsed = try TwiMLResponse(parsing: xml)
        #expect(parsed == Self.everything)
        #expect(parsed.xml == xml)
    }

    @Test func defaultsAreLeftOutAndTextIsEscaped() {
        let doc = TwiMLResponse(verbs: [
            .say(TwiMLSay(text: "a < b & c")),
            .dial(TwiMLDial(nouns: [.client(TwiMLClient(identity: "bob"))], timeout: 30)),
            .gather(TwiMLGather(numDigits: 1, prompts: [.say(TwiMLSay(text: "Press 1"))])),
            .reject(.busy),
        ])
        #expect(doc.xml == """
            <?xml version="1.0" encoding="UTF-8"?><Response><Say>a &lt; b &amp; c</Say><Dial><Client>bob</Client></Dial>\
            <Gather numDigits="1"><Say>Press 1</Say></Gather><Reject reason="busy"/></Response>
            """)
        #expect(TwiMLResponse().xml == "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response/>")
    }

    @Test func parsedDocumentsRoundTrip() throws {
        let sources = [
            "<Response><Dial>+15550001111</Dial></Response>",
            "<Response><Say>  spaced\ttext  </Say><Dial record='true' answerOnBridge='TRUE'><Client>x</Client></Dial></Response>",
            "<Response><Gather><Say>a<prosody rate='slow'>b</prosody></Say></Gather><Redirect>x</Redirect></Response>",
            "<Response><Dial><Client><Identity>id</Identity><Parameter name='n' value=' v&#9;&#10;'/></Client></Dial></Response>",
        ]
        for source in sources {
            let parsed = try TwiMLResponse(parsing: source)
            #expect(try TwiMLResponse(parsing: parsed.xml) == parsed, "\(source)")
        }
    }
}

@Suite struct URIReferenceTests {
    static let base = "http://a/b/c/d;p?q"

    /// RFC 3986 §5.4.1 (normal) and §5.4.2 (abnormal) examples.
    static let examples: [(String, String)] = [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"), (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"),
        ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"), ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),
    ]

    @Test(arguments: examples)
    func rfc3986ResolutionExamples(_ reference: String, _ expected: String) {
        #expect(URIReference.resolve(reference, against: Self.base) == expected)
    }

    @Test func twimlStyleResolution() {
        let doc = "https://app.example.com:8443/voice/incoming?step=1"
        #expect(URIReference.resolve("/voice/next", against: doc) == "https://app.example.com:8443/voice/next")
        #expect(URIReference.resolve("gather", against: doc) == "https://app.example.com:8443/voice/gather")
        #expect(URIReference.resolve("https://other.example/x", against: doc) == "https://other.example/x")
        #expect(URIReference.resolve("", against: doc) == doc)
        #expect(URIReference("https://u@h:1/p?q#f") == URIReference(scheme: "https", authority: "u@h:1", path: "/p", query: "q",
                                                                    fragment: "f"))
        #expect(URIReference.resolve("x", against: "http://h") == "http://h/x")
    }
}
