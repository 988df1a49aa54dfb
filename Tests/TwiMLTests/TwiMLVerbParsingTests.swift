import Testing
@testable import TwiML

private func verbs(_ body: String) throws -> [TwiMLVerb] {
    try TwiMLResponse(parsing: "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response>\(body)</Response>").verbs
}

private func only(_ body: String) throws -> TwiMLVerb {
    let v = try verbs(body)
    try #require(v.count == 1)
    return v[0]
}

@Suite struct TwiMLVerbParsingTests {
    @Test func emptyResponse() throws {
        #expect(try TwiMLResponse(parsing: "<Response/>").verbs.isEmpty)
        #expect(try TwiMLResponse(parsing: "<Response>\n  <!-- nothing -->\n</Response>").verbs.isEmpty)
    }

    @Test func dialDefaultsWithPlainTextNumber() throws {
        let dial = TwiMLDial(nouns: [.number(TwiMLNumber(number: "+15558675310"))])
        #expect(try only("<Dial> +15558675310 </Dial>") == .dial(dial))
        #expect(dial.timeout == 30 && dial.method == .post && dial.action == nil && dial.record == .doNotRecord)
        #expect(dial.timeLimit == 14_400 && !dial.hangupOnStar && !dial.answerOnBridge && dial.trim == .doNotTrim)
    }

    @Test func dialAttributesAndClientWithIdentityAndParameters() throws {
        let verb = try only("""
            <Dial callerId="client:alice" timeout="12" answerOnBridge="true" action="/dial-done" method="GET" \
            record="record-from-ringing-dual" hangupOnStar="true" timeLimit="600" trim="trim-silence" \
            recordingStatusCallback="/rec" recordingStatusCallbackMethod="get" ringTone="us">
              <Client url="/whisper" statusCallback="https://cb.example/s" statusCallbackEvent="ringing answered">
                <Identity>bob</Identity>
                <Parameter name="ticket" value="42"/>
                <Parameter name="empty"/>
              </Client>
              <Client>carol</Client>
            </Dial>
            """)
        let expected = TwiMLDial(
            nouns: [
                .client(TwiMLClient(identity: "bob", parameters: [TwiMLParameter(name: "ticket", value: "42"),
                                                                  TwiMLParameter(name: "empty", value: "")],
                                    url: "/whisper", statusCallback: "https://cb.example/s",
                                    statusCallbackEvents: [.ringing, .answered])),
                .client(TwiMLClient(identity: "carol")),
            ],
            action: "/dial-done", method: .get, timeout: 12, callerId: "client:alice", answerOnBridge: true,
            record: .recordFromRingingDual, hangupOnStar: true, timeLimit: 600, trim: .trimSilence,
            recordingStatusCallback: "/rec", recordingStatusCallbackMethod: .get)
        #expect(verb == .dial(expected))
    }

    @Test func dialNounsParseIndividually() throws {
        let v = try verbs("""
            <Dial record="true"><Number sendDigits="ww12#" url="/n">+15551234567</Number>\
            <Sip username="u" password="s3cret">sip:bob@example.com;transport=tls</Sip></Dial>\
            <Dial><Conference muted="true" beep="onExit" startConferenceOnEnter="false" endConferenceOnExit="true" \
            waitUrl="/hold" maxParticipants="10" record="record-from-start" statusCallbackEvent="start join end" \
            participantLabel="host">Room 1</Conference></Dial>
            """)
        let sip = TwiMLSip(uri: "sip:bob@example.com;transport=tls", username: "u", password: "s3cret")
        #expect(v == [
            .dial(TwiMLDial(nouns: [.number(TwiMLNumber(number: "+15551234567", sendDigits: "ww12#", url: "/n")), .sip(sip)],
                            record: .recordFromAnswer)),
            .dial(TwiMLDial(nouns: [.conference(TwiMLConference(
                name: "Room 1", muted: true, beep: "onExit", startConferenceOnEnter: false, endConferenceOnExit: true,
                waitUrl: "/hold", maxParticipants: 10, record: "record-from-start",
                statusCallbackEvents: ["start", "join", "end"], participantLabel: "host"))])),
        ])
        #expect(!"\(sip)".contains("s3cret") && !String(reflecting: sip).contains("s3cret"))
    }

    @Test func sayPlayPauseHangupRejectRedirect() throws {
        #expect(try verbs("""
            <Say>Hello <emphasis>there</emphasis>, <break time="1s"/>friend</Say>\
            <Say voice="Polly.Joanna" language="en-GB" loop="0">Bye</Say>\
            <Play>https://example.com/a.wav</Play><Play loop="3">tone.wav</Play><Play digits="w1234#"/>\
            <Pause/><Pause length="7"/><Hangup/><Reject/><Reject reason="busy"/>\
            <Redirect>/next</Redirect><Redirect method="GET">https://x.example/y?z=1&amp;w=2</Redirect>
            """) == [
                .say(TwiMLSay(text: "Hello there, friend")),
                .say(TwiMLSay(text: "Bye", voice: "Polly.Joanna", language: "en-GB", loop: 0)),
                .play(TwiMLPlay(url: "https://example.com/a.wav")), .play(TwiMLPlay(url: "tone.wav", loop: 3)),
                .play(TwiMLPlay(digits: "w1234#")),
                .pause(TwiMLPause(length: 1)), .pause(TwiMLPause(length: 7)), .hangup, .reject(.rejected), .reject(.busy),
                .redirect(TwiMLRedirect(url: "/next")), .redirect(TwiMLRedirect(url: "https://x.example/y?z=1&w=2", method: .get)),
            ])
    }

    @Test func gatherDefaultsAndAttributes() throws {
        #expect(try only("<Gather/>") == .gather(TwiMLGather()))
        let g = TwiMLGather()
        #expect(g.finishOnKey == "#" && g.timeout == 5 && g.numDigits == nil && g.method == .post && g.input == .dtmf)
        #expect(try only("""
            <Gather input="speech dtmf" numDigits="4" finishOnKey="" timeout="10" action="collect" method="GET" \
            actionOnEmptyResult="true" hints="yes, no"><Say>PIN?</Say><Pause length="2"/><Play>beep.wav</Play></Gather>
            """) == .gather(TwiMLGather(numDigits: 4, finishOnKey: "", timeout: 10, action: "collect", method: .get,
                                        input: [.dtmf, .speech], actionOnEmptyResult: true,
                                        prompts: [.say(TwiMLSay(text: "PIN?")), .pause(TwiMLPause(length: 2)),
                                                  .play(TwiMLPlay(url: "beep.wav"))])))
    }

    @Test func recordDefaultsAndAttributes() throws {
        let r = TwiMLRecord()
        #expect(try only("<Record/>") == .record(r))
        #expect(r.maxLength == 3600 && r.timeout == 5 && r.finishOnKey == "1234567890*#" && r.playBeep && r.trim == .trimSilence)
        #expect(try only("""
            <Record maxLength="20" timeout="0" finishOnKey="*" action="/rec" method="GET" playBeep="false" \
            trim="do-not-trim" recordingStatusCallback="https://cb/r" recordingStatusCallbackMethod="GET" transcribe="true"/>
            """) == .record(TwiMLRecord(maxLength: 20, timeout: 0, finishOnKey: "*", action: "/rec", method: .get,
                                        playBeep: false, trim: .doNotTrim, recordingStatusCallback: "https://cb/r",
                                        recordingStatusCallbackMethod: .get)))
    }

    static let invalid: [(String, String)] = [
        ("<Enqueue>support</Enqueue>", "verb <Enqueue> is not supported"),
        ("<Shout>hi</Shout>", "unknown verb <Shout>"),
        ("hello", "<Response> may not contain text"),
        ("<Dial/>", "<Dial> needs a number"),
        ("<Dial><Queue>q</Queue></Dial>", "noun <Queue> is not supported"),
        ("<Dial><Phone>1</Phone></Dial>", "unknown noun <Phone> in <Dial>"),
        ("<Dial>123<Client>a</Client></Dial>", "may not mix"),
        ("<Dial timeout=\"abc\">1</Dial>", "attribute timeout=\"abc\" is not valid"),
        ("<Dial timeout=\"0\">1</Dial>", "an integer from 1 to 600"),
        ("<Dial method=\"PUT\">1</Dial>", "expected GET or POST"),
        ("<Dial record=\"always\">1</Dial>", "one of do-not-record"),
        ("<Dial answerOnBridge=\"yes\">1</Dial>", "true or false"),
        ("<Dial><Conference>a</Conference><Client>b</Client></Dial>", "must be the only noun"),
        ("<Dial>" + String(repeating: "<Client>a</Client>", count: 11) + "</Dial>", "at most 10 nouns"),
        ("<Dial><Client/></Dial>", "<Client> needs an identity"),
        ("<Dial><Client>a<Identity>b</Identity></Client></Dial>", "more than one identity"),
        ("<Dial><Client><Identity>a</Identity><Parameter value=\"v\"/></Client></Dial>", "<Parameter> needs a name"),
        ("<Dial><Client><Say>x</Say></Client></Dial>", "<Client> may not contain <Say>"),
        ("<Dial><Client statusCallbackEvent=\"bogus\">a</Client></Dial>", "statusCallbackEvent"),
        ("<Dial><Sip>bob@example.com</Sip></Dial>", "sip: or sips: URI"),
        ("<Dial><Number sendDigits=\"12x\">1</Number></Dial>", "DTMF keys"),
        ("<Dial><Conference beep=\"loud\">r</Conference></Dial>", "one of true, false"),
        ("<Say/>", "<Say> needs text"),
        ("<Say><Play>x</Play></Say>", "<Say> may not contain <Play>"),
        ("<Say loop=\"-1\">x</Say>", "loop"),
        ("<Play/>", "either a URL or a digits"),
        ("<Play digits=\"1\">a.wav</Play>", "either a URL or a digits"),
        ("<Play><Say>x</Say></Play>", "<Play> may not contain <Say>"),
        ("<Pause length=\"x\"/>", "length"),
        ("<Pause>1</Pause>", "<Pause> may not contain text"),
        ("<Gather finishOnKey=\"ab\"/>", "finishOnKey"),
        ("<Gather numDigits=\"0\"/>", "numDigits"),
        ("<Gather input=\"voice\"/>", "input"),
        ("<Gather><Dial>1</Dial></Gather>", "<Gather> may not contain <Dial>"),
        ("<Gather>press</Gather>", "<Gather> may not contain text"),
        ("<Record finishOnKey=\"x\"/>", "finishOnKey"),
        ("<Record maxLength=\"0\"/>", "maxLength"),
        ("<Record trim=\"maybe\"/>", "trim"),
        ("<Hangup>now</Hangup>", "<Hangup> may not contain text"),
        ("<Hangup><Say>x</Say></Hangup>", "<Hangup> may not contain <Say>"),
        ("<Reject reason=\"later\"/>", "one of rejected, busy"),
        ("<Redirect/>", "<Redirect> needs text"),
    ]

    @Test(arguments: invalid)
    func invalidTwiMLIsRefusedWithAReason(_ body: String, _ reason: String) {
        #expect {
            _ = try verbs(body)
        } throws: { error in
            guard let e = error as? TwiMLError else { return false }
            return e.kind == .invalidTwiML && e.reason.contains(reason) && e.offset != nil && e.twilioErrorCode == 12200
        }
    }

    @Test func rootMustBeResponseAndErrorsCarryOffsets() throws {
        #expect { _ = try TwiMLResponse(parsing: "<Reponse/>") } throws: {
            ($0 as? TwiMLError) == TwiMLError(.invalidTwiML, "the root element must be <Response>, not <Reponse>", at: 0)
        }
        do {
            _ = try TwiMLResponse(parsing: "<Response>\n<Say>a</Say>\n<Dial timeout='x'>1</Dial></Response>")
            Issue.record("expected an error")
        } catch {
            #expect(error.offset == 24)
            #expect(error.description.hasSuffix("(at byte 24)"))
        }
        #expect { _ = try TwiMLResponse(parsing: "<Response><Say>") } throws: {
            ($0 as? TwiMLError)?.twilioErrorCode == 12100
        }
    }
}
