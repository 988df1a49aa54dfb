import Testing
@testable import TwiML

let appURL = "https://app.example.com/voice/incoming"

func document(_ body: String) throws -> TwiMLResponse { try TwiMLResponse(parsing: "<Response>\(body)</Response>") }

func interpreter(_ body: String, maxFetches: Int = 100) throws -> TwiMLInterpreter {
    TwiMLInterpreter(document: try document(body), documentURL: appURL, maxFetches: maxFetches)
}

func say(_ text: String, loop: Int = 1) -> TwiMLAction { .say(text: text, voice: nil, language: nil, loop: loop) }

@Suite struct TwiMLInterpreterTests {
    @Test func sayThenDialWithActionFetchesTheNextDocument() throws {
        var t = try interpreter("""
            <Say>Connecting</Say><Dial action="../after" timeout="20" callerId="+1000"><Client url="whisper">bob</Client></Dial>\
            <Say>never</Say>
            """)
        #expect(t.start(now: 0) == [.answer, say("Connecting")])
        #expect(t.nextDeadline == nil && !t.isFinished)
        var request = DialRequest(TwiMLDial(nouns: [.client(TwiMLClient(identity: "bob", url: "whisper"))], timeout: 20,
                                            callerId: "+1000"), documentURL: appURL)
        #expect(request.nouns == [.client(TwiMLClient(identity: "bob", url: "https://app.example.com/voice/whisper"))])
        request.timeout = 20
        #expect(t.handle(.mediaFinished, now: 1500) == [.dial(request)])
        #expect(t.handle(.digit("1"), now: 2000) == [])
        #expect(t.handle(.mediaFinished, now: 2000) == [])
        let outcome = DialOutcome(status: .completed, callSid: "CA0123", duration: 42)
        #expect(t.handle(.dialCompleted(outcome), now: 45_000) == [.fetch(url: "https://app.example.com/after", method: .post, parameters: [
            ("DialCallStatus", "completed"), ("DialCallSid", "CA0123"), ("DialCallDuration", "42"),
        ])])
        #expect(t.fetchCount == 1)
        #expect(t.handle(.documentFetched(try document("<Say>Bye</Say>"), url: "https://app.example.com/after"), now: 45_100)
                == [say("Bye")])
        #expect(t.documentURL == "https://app.example.com/after")
        #expect(t.handle(.mediaFinished, now: 46_000) == [.hangup])
        #expect(t.isFinished && t.failureReason == nil)
        #expect(t.handle(.mediaFinished, now: 47_000) == [])
    }

    @Test func dialWithoutActionContinuesWithTheNextVerb() throws {
        var t = try interpreter("<Dial>+15550001111</Dial><Say>They were busy</Say>")
        #expect(t.start(now: 0) == [.answer, .dial(DialRequest(TwiMLDial(nouns: [.number(TwiMLNumber(number: "+15550001111"))]),
                                                                documentURL: appURL))])
        #expect(t.handle(.dialCompleted(DialOutcome(status: .busy)), now: 3000) == [say("They were busy")])
    }

    @Test func answerOnBridgeLeavesAnsweringToTheBridge() throws {
        var t = try interpreter("<Dial answerOnBridge='true'><Client>bob</Client></Dial><Say>after</Say><Say>more</Say>")
        let start = t.start(now: 0)
        #expect(start.count == 1 && !start.contains(.answer))
        #expect(t.handle(.dialCompleted(DialOutcome(status: .noAnswer)), now: 30_000) == [.answer, say("after")])

        var bridged = try interpreter("<Dial answerOnBridge='true'><Client>bob</Client></Dial><Say>after</Say>")
        _ = bridged.start(now: 0)
        #expect(bridged.handle(.dialCompleted(DialOutcome(status: .completed, callSid: "CA1", duration: 5)), now: 9000)
                == [say("after")])
        #expect(bridged.isAnswered)
    }

    @Test func recordFetchesItsActionWithTheRecording() throws {
        var t = try interpreter("<Record maxLength='30' playBeep='false' recordingStatusCallback='status'/><Say>unreached</Say>")
        var expected = RecordRequest(TwiMLRecord(maxLength: 30, playBeep: false, recordingStatusCallback: "status"),
                                     documentURL: appURL)
        #expect(expected.recordingStatusCallback == "https://app.example.com/voice/status")
        expected.maxLength = 30
        #expect(t.start(now: 0) == [.answer, .record(expected)])
        #expect(t.handle(.recordingFinished(url: "https://rec/RE1", duration: 12, digits: "#", sid: "RE1"), now: 12_000) == [
            .fetch(url: appURL, method: .post, parameters: [("RecordingUrl", "https://rec/RE1"), ("RecordingDuration", "12"),
                                                            ("RecordingSid", "RE1"), ("Digits", "#")]),
        ])
    }

    @Test func emptyRecordingContinuesWithTheNextVerb() throws {
        var t = try interpreter("<Record action='/r'/><Say>Nothing recorded</Say>")
        _ = t.start(now: 0)
        #expect(t.handle(.recordingFinished(url: "", duration: 0, digits: "hangup", sid: "RE2"), now: 5000)
                == [say("Nothing recorded")])
    }

    @Test func failedRecordingStillFetchesTheActionWithItsErrorCode() throws {
        var t = try interpreter("<Record action='/r'/><Say>unreached</Say>")
        _ = t.start(now: 0)
        #expect(t.handle(.recordingFinished(url: "", duration: 0, digits: "", sid: "RE3", errorCode: 31500), now: 60)
                == [.fetch(url: "https://app.example.com/r", method: .post,
                           parameters: [("RecordingSid", "RE3"), ("RecordingDuration", "0"), ("Digits", ""),
                                        ("RecordingStatus", "failed"), ("ErrorCode", "31500")])])
    }

    @Test func pauseWaitsOnTheDeadlineAndDelaysAnswering() throws {
        var t = try interpreter("<Pause length='2'/><Pause length='0'/><Say>x</Say>")
        #expect(t.start(now: 1000) == [])
        #expect(t.nextDeadline == 3000)
        #expect(t.tick(now: 2999) == [])
        #expect(t.tick(now: 3000) == [.answer, say("x")])
        #expect(t.nextDeadline == nil)
    }

    @Test func hangupRejectAndEndOfDocument() throws {
        var reject = try interpreter("<Reject reason='busy'/><Say>x</Say>")
        #expect(reject.start(now: 0) == [.reject(reason: .busy)])
        #expect(reject.isFinished && !reject.isAnswered)

        var late = try interpreter("<Say>hi</Say><Reject/>")
        _ = late.start(now: 0)
        #expect(late.handle(.mediaFinished, now: 1) == [.hangup])

        // Issue 13.4: Twilio answers a call whose first verb is <Hangup>, then completes it.
        var hangup = try interpreter("<Hangup/><Say>x</Say>")
        #expect(hangup.start(now: 0) == [.answer, .hangup])
        #expect(hangup.isAnswered)
        #expect(hangup.start(now: 0) == [])

        // After a <Dial answerOnBridge> nobody answered, the call ends as the dial did.
        var unbridged = try interpreter("<Dial answerOnBridge='true'><Client>bob</Client></Dial><Hangup/>")
        _ = unbridged.start(now: 0)
        #expect(unbridged.handle(.dialCompleted(DialOutcome(status: .noAnswer)), now: 30_000) == [.hangup])
        #expect(!unbridged.isAnswered)

        var empty = try interpreter("")
        #expect(empty.start(now: 0) == [.hangup])
        #expect(empty.isFinished)

        var loop = try interpreter("<Say loop='0'>forever</Say>")
        #expect(loop.start(now: 0) == [.answer, say("forever", loop: 1000)])
    }

    /// Issue 13.3: the call ends while <Dial> runs — the dial's action is still requested, once,
    /// and nothing more happens; without an action (or outside a dial) nothing is requested.
    @Test func aCallEndingDuringADialStillRequestsItsAction() throws {
        var t = try interpreter("<Dial action='/dial-action' method='GET' timeout='10'><Client>bob</Client></Dial><Say>never</Say>")
        _ = t.start(now: 0)
        let outcome = DialOutcome(status: .completed, callSid: "CA1", duration: 6)
        #expect(t.callEnded(duringDial: outcome) == .fetch(url: "https://app.example.com/dial-action", method: .get,
                                                           parameters: [("DialCallStatus", "completed"), ("DialCallSid", "CA1"),
                                                                        ("DialCallDuration", "6")]))
        #expect(t.isFinished)
        #expect(t.callEnded(duringDial: outcome) == nil)
        #expect(t.handle(.dialCompleted(outcome), now: 1) == [])

        var noAction = try interpreter("<Dial><Client>bob</Client></Dial>")
        _ = noAction.start(now: 0)
        #expect(noAction.callEnded(duringDial: outcome) == nil)
        var saying = try interpreter("<Say>hi</Say><Dial action='/a'><Client>bob</Client></Dial>")
        _ = saying.start(now: 0)
        #expect(saying.callEnded(duringDial: outcome) == nil, "no dial was running yet")
    }

    @Test func redirectLoopsAreCapped() throws {
        var t = try interpreter("<Redirect>loop</Redirect>", maxFetches: 5)
        let loopURL = "https://app.example.com/voice/loop"
        #expect(t.start(now: 0) == [.fetch(url: loopURL, method: .post, parameters: [])])
        for i in 1..<5 {
            #expect(t.handle(.documentFetched(try document("<Redirect method='GET'>loop</Redirect>"), url: loopURL), now: Int64(i))
                    == [.fetch(url: loopURL, method: .get, parameters: [])])
        }
        #expect(t.fetchCount == 5)
        #expect(t.handle(.documentFetched(try document("<Redirect>loop</Redirect>"), url: loopURL), now: 9) == [.hangup])
        #expect(t.isFinished)
        #expect(t.failureReason?.contains("more than 5 TwiML documents") == true)
    }

    @Test func relativeURLsResolveAgainstTheCurrentDocument() throws {
        var t = try interpreter("<Play>../media/hello.wav</Play><Redirect>next?x=1</Redirect>")
        #expect(t.start(now: 0) == [.answer, .play(url: "https://app.example.com/media/hello.wav", loop: 1)])
        #expect(t.handle(.mediaFinished, now: 1) == [.fetch(url: "https://app.example.com/voice/next?x=1", method: .post,
                                                            parameters: [])])
        #expect(t.handle(.documentFetched(try document("<Play loop='2'>a.wav</Play><Play digits='1w2'/>"),
                                          url: "https://cdn.example.net/flows/step2"), now: 2)
                == [.play(url: "https://cdn.example.net/flows/a.wav", loop: 2)])
        #expect(t.handle(.mediaFinished, now: 3) == [.playDigits("1w2")])
    }

    @Test func restRedirectAbandonsTheCurrentVerb() throws {
        var dialing = try interpreter("<Dial><Client>bob</Client></Dial>")
        _ = dialing.start(now: 0)
        #expect(dialing.handle(.redirect(url: "https://other.example/new", method: .get), now: 10)
                == [.cancelDial, .fetch(url: "https://other.example/new", method: .get, parameters: [])])
        #expect(dialing.handle(.dialCompleted(DialOutcome(status: .canceled)), now: 11) == [])
        #expect(dialing.handle(.documentFetched(try document("<Hangup/>"), url: "https://other.example/new"), now: 12) == [.hangup])
        #expect(dialing.handle(.redirect(url: "/x", method: .post), now: 13) == [])

        var saying = try interpreter("<Say>long</Say>")
        _ = saying.start(now: 0)
        #expect(saying.handle(.redirect(url: "/x", method: .post), now: 1)
                == [.stopMedia, .fetch(url: "https://app.example.com/x", method: .post, parameters: [])])

        var recording = try interpreter("<Record/>")
        _ = recording.start(now: 0)
        #expect(recording.handle(.redirect(url: "/x", method: .post), now: 1).first == .stopRecording)
    }

    @Test func restTwimlReplacesTheDocumentInPlace() throws {
        // Dialing: the dial is cancelled and the new document runs at once, without a fetch; its
        // relative URLs resolve against the document it replaced.
        var dialing = try interpreter("<Dial><Client>bob</Client></Dial><Say>never</Say>")
        _ = dialing.start(now: 0)
        #expect(dialing.handle(.replace(try document("<Play>hold.wav</Play><Redirect>next</Redirect>")), now: 10)
                == [.cancelDial, .play(url: "https://app.example.com/voice/hold.wav", loop: 1)])
        #expect(dialing.handle(.dialCompleted(DialOutcome(status: .canceled)), now: 11) == [])
        #expect(dialing.fetchCount == 0)
        #expect(dialing.handle(.mediaFinished, now: 12) == [.fetch(url: "https://app.example.com/voice/next", method: .post,
                                                                  parameters: [])])

        // Waiting in a pause: nothing to stop; a document that ends hangs up.
        var pausing = try interpreter("<Pause length='30'/>")
        _ = pausing.start(now: 0)
        #expect(pausing.handle(.replace(try document("<Say>bye</Say>")), now: 5) == [.answer, say("bye")])
        #expect(pausing.nextDeadline == nil)
        #expect(pausing.handle(.mediaFinished, now: 6) == [.hangup])
        #expect(pausing.handle(.replace(try document("<Say>late</Say>")), now: 7) == [])

        var gathering = try interpreter("<Gather><Say>menu</Say></Gather>")
        _ = gathering.start(now: 0)
        #expect(gathering.handle(.replace(try document("<Hangup/>")), now: 1) == [.stopMedia, .hangup])
    }

    @Test func fetchFailureEndsTheCallWithAReason() throws {
        var t = try interpreter("<Redirect>/next</Redirect>")
        _ = t.start(now: 0)
        #expect(t.handle(.fetchFailed(reason: "HTTP 500 from https://app.example.com/next"), now: 1) == [.hangup])
        #expect(t.failureReason == "HTTP 500 from https://app.example.com/next")
        #expect(t.isFinished)
    }
}
