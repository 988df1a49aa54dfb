import SIP
import Testing

/// The four transaction state machines of RFC 3261 §17 (with RFC 6026's Accepted states), driven
/// through their timers in virtual time.
@Suite struct TransactionTests {
    // MARK: INVITE client (§17.1.1)

    @Test func rfc3261_17_1_1_2_inviteOverUDPRetransmitsOnTimerAThenTimesOutOnTimerB() {
        var transaction = InviteClientTransaction(reliable: false)
        var schedule = TransactionSchedule()
        schedule.record(transaction.start())
        schedule.run(until: 40) { transaction.fired($0) }
        // A doubles from T1: 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5; B fires at 64·T1 = 32 s.
        #expect(schedule.times(of: .transmitRequest) == [0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5])
        #expect(schedule.times(of: .timedOut) == [32])
        #expect(transaction.state == .terminated)
    }

    @Test func inviteOverTCPSendsOnceAndStillTimesOut() {
        var transaction = InviteClientTransaction(reliable: true)
        var schedule = TransactionSchedule()
        schedule.record(transaction.start())
        schedule.run(until: 40) { transaction.fired($0) }
        #expect(schedule.times(of: .transmitRequest) == [0])
        #expect(schedule.times(of: .timedOut) == [32])
    }

    @Test func aProvisionalStopsRetransmissionsAndTimerBNoLongerApplies() {
        var transaction = InviteClientTransaction(reliable: false)
        var schedule = TransactionSchedule()
        schedule.record(transaction.start())
        schedule.run(until: 1) { transaction.fired($0) }
        schedule.record(transaction.received(status: 180))
        schedule.run(until: 60) { transaction.fired($0) }
        #expect(schedule.times(of: .transmitRequest) == [0, 0.5])
        #expect(schedule.times(of: .timedOut).isEmpty)
        #expect(transaction.state == .proceeding)
        #expect(schedule.times(of: .deliverResponse) == [1])
    }

    @Test func rfc3261_17_1_1_3_aNonSuccessIsACKedAgainForEachRetransmissionAndNotPassedUp() {
        var transaction = InviteClientTransaction(reliable: false)
        _ = transaction.start()
        let step1 = transaction.received(status: 486)
        #expect(step1 == [.transmitACK, .deliverResponse, .startTimer(.d, seconds: 32)])
        let step2 = transaction.received(status: 486)
        #expect(step2 == [.transmitACK])
        let step3 = transaction.fired(.d)
        #expect(step3 == [.terminated])
    }

    @Test func rfc6026_8_4_twoHundredsAreAllPassedUpDuringTimerM() {
        var transaction = InviteClientTransaction(reliable: false)
        _ = transaction.start()
        let step4 = transaction.received(status: 200)
        #expect(step4 == [.deliverResponse, .startTimer(.m, seconds: 32)])
        #expect(transaction.state == .accepted)
        let step5 = transaction.received(status: 200)
        #expect(step5 == [.deliverResponse])
        let step6 = transaction.fired(.a)
        #expect(step6.isEmpty)  // no retransmission once accepted
        let step7 = transaction.fired(.m)
        #expect(step7 == [.terminated])
    }

    @Test func aTransportErrorEndsTheClientTransaction() {
        var transaction = InviteClientTransaction(reliable: true)
        _ = transaction.start()
        let step8 = transaction.transportFailed()
        #expect(step8 == [.transportFailed, .terminated])
        var register = NonInviteClientTransaction(reliable: false)
        _ = register.start()
        let step9 = register.transportFailed()
        #expect(step9 == [.transportFailed, .terminated])
    }

    // MARK: Non-INVITE client (§17.1.2)

    @Test func rfc3261_17_1_2_2_nonInviteRetransmitsUpToT2ThenTimesOutOnTimerF() {
        var transaction = NonInviteClientTransaction(reliable: false)
        var schedule = TransactionSchedule()
        schedule.record(transaction.start())
        schedule.run(until: 40) { transaction.fired($0) }
        #expect(schedule.times(of: .transmitRequest) == [0, 0.5, 1.5, 3.5, 7.5, 11.5, 15.5, 19.5, 23.5, 27.5, 31.5])
        #expect(schedule.times(of: .timedOut) == [32])
    }

    @Test func inProceedingTheRequestIsResentEveryT2() {
        var transaction = NonInviteClientTransaction(reliable: false)
        var schedule = TransactionSchedule()
        schedule.record(transaction.start())
        schedule.record(transaction.received(status: 100))
        schedule.run(until: 10) { transaction.fired($0) }
        // E was already due at 0.5 with T1; after it, every T2.
        #expect(schedule.times(of: .transmitRequest) == [0, 0.5, 4.5, 8.5])
    }

    @Test func aFinalResponseWaitsTimerKOverUDPAndEndsAtOnceOverTCP() {
        var udp = NonInviteClientTransaction(reliable: false)
        _ = udp.start()
        let step10 = udp.received(status: 200)
        #expect(step10 == [.deliverResponse, .startTimer(.k, seconds: 5)])
        let step11 = udp.received(status: 200)
        #expect(step11.isEmpty)
        let step12 = udp.fired(.k)
        #expect(step12 == [.terminated])
        var tcp = NonInviteClientTransaction(reliable: true)
        _ = tcp.start()
        let step13 = tcp.received(status: 401)
        #expect(step13 == [.deliverResponse, .terminated])
    }

    // MARK: INVITE server (§17.2.1)

    @Test func rfc3261_17_2_1_aNonSuccessIsRetransmittedOnTimerGUntilTheACK() {
        var transaction = InviteServerTransaction(reliable: false)
        var schedule = TransactionSchedule()
        schedule.record(transaction.start())
        #expect(transaction.receivedRequestRetransmission() == [.transmitResponse])  // the 100 again
        schedule.record(transaction.send(status: 486))
        schedule.run(until: 5) { transaction.fired($0) }
        #expect(schedule.times(of: .transmitResponse) == [0, 0.5, 1.5, 3.5])
        schedule.record(transaction.receivedACK())
        #expect(transaction.state == .confirmed)
        schedule.run(until: 20) { transaction.fired($0) }
        #expect(schedule.times(of: .transmitResponse) == [0, 0.5, 1.5, 3.5])
        #expect(schedule.terminated && schedule.times(of: .terminated) == [10])  // ACK at 5, I = T4
    }

    @Test func withoutAnACKTimerHEndsTheTransaction() {
        var transaction = InviteServerTransaction(reliable: false)
        var schedule = TransactionSchedule()
        schedule.record(transaction.start())
        schedule.record(transaction.send(status: 603))
        schedule.run(until: 60) { transaction.fired($0) }
        // G doubles to T2 and stays there: 0, .5, 1.5, 3.5, 7.5, 11.5, …, 31.5; H at 32.
        #expect(schedule.times(of: .transmitResponse).count == 11)
        #expect(schedule.times(of: .timedOut) == [32])
    }

    @Test func rfc6026_8_7_afterA2xxACKsGoToTheUserAndRetransmittedInvitesAreAbsorbed() {
        var transaction = InviteServerTransaction(reliable: false)
        _ = transaction.start()
        let step14 = transaction.send(status: 180)
        #expect(step14 == [.transmitResponse])
        let step15 = transaction.send(status: 200)
        #expect(step15 == [.transmitResponse, .startTimer(.l, seconds: 32)])
        #expect(transaction.receivedRequestRetransmission().isEmpty)
        let step16 = transaction.send(status: 200)
        #expect(step16 == [.transmitResponse])  // the user's retransmission
        let step17 = transaction.receivedACK()
        #expect(step17 == [.deliverACK])
        let step18 = transaction.fired(.l)
        #expect(step18 == [.terminated])
    }

    @Test func overTCPTheACKEndsTheServerTransaction() {
        var transaction = InviteServerTransaction(reliable: true)
        _ = transaction.start()
        let step19 = transaction.send(status: 404)
        #expect(step19 == [.transmitResponse, .startTimer(.h, seconds: 32)])
        let step20 = transaction.receivedACK()
        #expect(step20 == [.terminated])
    }

    // MARK: Non-INVITE server (§17.2.2)

    @Test func rfc3261_17_2_2_retransmittedRequestsGetTheLatestResponseUntilTimerJ() {
        var transaction = NonInviteServerTransaction(reliable: false)
        #expect(transaction.receivedRequestRetransmission().isEmpty)  // Trying: nothing sent yet
        let step21 = transaction.send(status: 100)
        #expect(step21 == [.transmitResponse])
        #expect(transaction.receivedRequestRetransmission() == [.transmitResponse])
        let step22 = transaction.send(status: 200)
        #expect(step22 == [.transmitResponse, .startTimer(.j, seconds: 32)])
        #expect(transaction.receivedRequestRetransmission() == [.transmitResponse])
        let step23 = transaction.send(status: 500)
        #expect(step23.isEmpty)  // one final response only
        let step24 = transaction.fired(.j)
        #expect(step24 == [.terminated])
        var tcp = NonInviteServerTransaction(reliable: true)
        let step25 = tcp.send(status: 200)
        #expect(step25 == [.transmitResponse, .terminated])
    }
}
