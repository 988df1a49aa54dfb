import Foundation
import Testing
@testable import ParleyCore

@Suite struct ParleyErrorTests {
    @Test func seedCodesHaveTheirNumbersAndNames() {
        #expect(ParleyError.Code.accessTokenInvalid.rawValue == 20101)
        #expect(ParleyError.Code.accessTokenExpired.name == "AccessTokenExpiredError")
        #expect(ParleyError.Code.expirationTimeExceedsMaxTimeAllowed.rawValue == 20157)
        #expect(ParleyError.Code.applicationNotFound.rawValue == 21218)
        #expect(ParleyError.Code.tokenAuthenticationRejected.rawValue == 51007)
        #expect(ParleyError.Code.mediaDtlsTransportFailed.rawValue == 53407)
        #expect(ParleyError.Code.mediaDtlsTransportFailed.name == "MediaDtlsTransportFailedError")
    }

    @Test func everyRangeTheIssueNamesIsCovered() {
        let numbers = Set(ParleyError.Code.all.map(\.rawValue))
        #expect(ParleyError.Code.all.count == 44)
        #expect(numbers.count == ParleyError.Code.all.count)
        for n in [20101, 20102, 20103, 20104, 20105, 20106, 20151, 20157, 20403, 21218,
                  31005, 31008, 31009, 31100, 31201, 31301, 31400, 31403, 31404, 31408, 31409, 31426, 31429,
                  31480, 31481, 31484, 31486, 31487, 31500, 31502, 31503, 31504, 31530, 31603, 31604,
                  51007, 53001, 53400, 53401, 53402, 53403, 53404, 53405, 53407] {
            #expect(numbers.contains(n), "missing \(n)")
        }
        for code in ParleyError.Code.all {
            #expect(code.name != "UnknownError")
            #expect(!code.text.isEmpty)
        }
    }

    @Test func bridgesToNSError() {
        let error = ParleyError(.accessTokenExpired, reason: "exp 100 is before now 200")
        let ns = error as NSError
        #expect(ns.domain == ParleyError.domain)
        #expect(ns.code == 20104)
        #expect(ns.localizedDescription == "Access Token has expired or expiration date is invalid")
        #expect(ns.localizedFailureReason == "exp 100 is before now 200")
    }

    @Test func unknownCodeIsNamedUnknown() {
        #expect(ParleyError.Code(rawValue: 1).name == "UnknownError")
    }
}
