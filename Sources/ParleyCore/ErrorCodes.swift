// Generated from ../shared/seeds/000 (the Voice SDK error table); numbers and names are the seed's.
// Regenerate rather than edit by hand when the seed grows.

extension ParleyError.Code {
    /// 20101: Parley was unable to validate your Access Token
    public static let accessTokenInvalid = ParleyError.Code(rawValue: 20101)
    /// 20102: Invalid Access Token header
    public static let accessTokenHeaderInvalid = ParleyError.Code(rawValue: 20102)
    /// 20103: Invalid Access Token issuer or subject
    public static let accessTokenIssuerInvalid = ParleyError.Code(rawValue: 20103)
    /// 20104: Access Token has expired or expiration date is invalid
    public static let accessTokenExpired = ParleyError.Code(rawValue: 20104)
    /// 20105: Access Token not yet valid
    public static let accessTokenNotYetValid = ParleyError.Code(rawValue: 20105)
    /// 20106: Invalid Access Token grants
    public static let accessTokenGrantsInvalid = ParleyError.Code(rawValue: 20106)
    /// 20151: Parley failed to authenticate the client
    public static let authFailureCode = ParleyError.Code(rawValue: 20151)
    /// 20157: Expiration Time in the Access Token Exceeds Maximum Time Allowed
    public static let expirationTimeExceedsMaxTimeAllowed = ParleyError.Code(rawValue: 20157)
    /// 20403: Forbidden. The account lacks permission to access the Parley API
    public static let accessForbidden = ParleyError.Code(rawValue: 20403)
    /// 21218: Invalid ApplicationSid
    public static let applicationNotFound = ParleyError.Code(rawValue: 21218)
    /// 31005: Connection error
    public static let connection = ParleyError.Code(rawValue: 31005)
    /// 31008: Call Cancelled
    public static let callCancelled = ParleyError.Code(rawValue: 31008)
    /// 31009: Transport error
    public static let transport = ParleyError.Code(rawValue: 31009)
    /// 31100: Malformed request
    public static let malformedRequest = ParleyError.Code(rawValue: 31100)
    /// 31201: Authorization error
    public static let authorization = ParleyError.Code(rawValue: 31201)
    /// 31301: Registration failed. Look at [error localizedFailureReason] for details
    public static let registration = ParleyError.Code(rawValue: 31301)
    /// 31400: Bad Request. The request could not be understood due to malformed syntax
    public static let badRequest = ParleyError.Code(rawValue: 31400)
    /// 31403: Forbidden. The server understood the request, but is refusing to fulfill it
    public static let forbidden = ParleyError.Code(rawValue: 31403)
    /// 31404: Not Found. The server has not found anything matching the request
    public static let notFound = ParleyError.Code(rawValue: 31404)
    /// 31408: Request Timeout. A request timeout occurred
    public static let requestTimeout = ParleyError.Code(rawValue: 31408)
    /// 31409: Conflict. The request could not be processed because of a conflict in the current state of the resource. Another request may be in progress
    public static let conflict = ParleyError.Code(rawValue: 31409)
    /// 31426: Upgrade Required. This error is raised when an HTTP 426 response is received. The reason for this is most likely because of an incompatible TLS version. To mitigate this, you may need to upgrade the OS or download a more recent version of the SDK.
    public static let upgradeRequired = ParleyError.Code(rawValue: 31426)
    /// 31429: Too Many Requests. Too many requests were sent in a given amount of time
    public static let tooManyRequests = ParleyError.Code(rawValue: 31429)
    /// 31480: Temporarily Unavailable
    public static let temporarilyUnavailable = ParleyError.Code(rawValue: 31480)
    /// 31481: Call/Transaction Does Not Exist
    public static let callDoesNotExist = ParleyError.Code(rawValue: 31481)
    /// 31484: The phone number is malformed
    public static let addressIncomplete = ParleyError.Code(rawValue: 31484)
    /// 31486: Busy Here
    public static let busyHere = ParleyError.Code(rawValue: 31486)
    /// 31487: Request Terminated
    public static let requestTerminated = ParleyError.Code(rawValue: 31487)
    /// 31500: Internal Server Error. The server could not fulfill the request due to some unexpected condition
    public static let internalServer = ParleyError.Code(rawValue: 31500)
    /// 31502: Bad Gateway. The server is acting as a gateway or proxy, and received an invalid response from a downstream server while attempting to fulfill the request
    public static let badGateway = ParleyError.Code(rawValue: 31502)
    /// 31503: Service Unavailable. The server is currently unable to handle the request due to a temporary overloading or maintenance of the server
    public static let serviceUnavailable = ParleyError.Code(rawValue: 31503)
    /// 31504: Gateway Timeout. The server, while acting as a gateway or proxy, did not receive a timely response from an upstream server
    public static let gatewayTimeout = ParleyError.Code(rawValue: 31504)
    /// 31530: DNS Resolution Error
    public static let dnsResolution = ParleyError.Code(rawValue: 31530)
    /// 31603: Decline
    public static let decline = ParleyError.Code(rawValue: 31603)
    /// 31604: Does Not Exist Anywhere
    public static let doesNotExistAnywhere = ParleyError.Code(rawValue: 31604)
    /// 51007: Token authentication is rejected by authentication service
    public static let tokenAuthenticationRejected = ParleyError.Code(rawValue: 51007)
    /// 53001: Signaling connection disconnected
    public static let signalingConnectionDisconnected = ParleyError.Code(rawValue: 53001)
    /// 53400: Client is unable to create or apply a local media description
    public static let mediaClientLocalDescFailed = ParleyError.Code(rawValue: 53400)
    /// 53401: Server is unable to create or apply a local media description
    public static let mediaServerLocalDescFailed = ParleyError.Code(rawValue: 53401)
    /// 53402: Client is unable to apply a remote media description
    public static let mediaClientRemoteDescFailed = ParleyError.Code(rawValue: 53402)
    /// 53403: Server is unable to apply a remote media description
    public static let mediaServerRemoteDescFailed = ParleyError.Code(rawValue: 53403)
    /// 53404: No supported codec
    public static let mediaNoSupportedCodec = ParleyError.Code(rawValue: 53404)
    /// 53405: Media connection failed
    public static let mediaConnection = ParleyError.Code(rawValue: 53405)
    /// 53407: Media connection failed due to DTLS handshake failure
    public static let mediaDtlsTransportFailed = ParleyError.Code(rawValue: 53407)

    // Codes of the vendor's REST API (not in the Voice SDK seed, so not in `all`): the
    // `/2010-04-01` resources answer with them.
    /// 20001: Invalid parameter
    public static let invalidParameter = ParleyError.Code(rawValue: 20001)
    /// 20003: Authenticate (wrong, missing or foreign credentials)
    public static let authenticationFailed = ParleyError.Code(rawValue: 20003)
    /// 20004: Method not allowed
    public static let methodNotAllowed = ParleyError.Code(rawValue: 20004)
    /// 20404: The requested resource was not found
    public static let resourceNotFound = ParleyError.Code(rawValue: 20404)
    /// 20500: Internal server error
    public static let restInternalServer = ParleyError.Code(rawValue: 20500)
    /// 21220: Invalid call state
    public static let invalidCallState = ParleyError.Code(rawValue: 21220)
    /// 20009: Cannot delete this resource before it is complete
    public static let deleteBeforeComplete = ParleyError.Code(rawValue: 20009)
    /// 21201: No 'To' number is specified
    public static let toMissing = ParleyError.Code(rawValue: 21201)
    /// 21205: Invalid URL (a created call's Url, or none of Url, Twiml, ApplicationSid)
    public static let invalidCallURL = ParleyError.Code(rawValue: 21205)
    /// 21211: Invalid 'To' Phone Number (not `client:`, `sip:` or a number, or nothing routes it)
    public static let invalidTo = ParleyError.Code(rawValue: 21211)
    /// 21213: No 'From' number is specified
    public static let fromMissing = ParleyError.Code(rawValue: 21213)
    /// 12100: Document parse failure (inline `Twiml` that is not well-formed XML)
    public static let twimlParseFailure = ParleyError.Code(rawValue: 12100)
    /// 12200: Schema validation warning (inline `Twiml` that is XML but not valid TwiML)
    public static let twimlSchemaInvalid = ParleyError.Code(rawValue: 12200)
    /// 32018: Twiml size exceeded maximum allowed value (4000 characters)
    public static let twimlTooLarge = ParleyError.Code(rawValue: 32018)
    /// 21231: Domain Validation Error (a SIP domain's parameters, or a list mapped to it twice)
    public static let sipDomainValidation = ParleyError.Code(rawValue: 21231)
    /// 21232: Invalid Domain (a SIP domain name that is malformed or already in use)
    public static let sipDomainInvalid = ParleyError.Code(rawValue: 21232)
    /// 21240: Credential List Validation Error (SIP credential and IP access control lists)
    public static let credentialListValidation = ParleyError.Code(rawValue: 21240)
    /// 21243: Credential Validation Error (a SIP credential's username or password)
    public static let credentialValidation = ParleyError.Code(rawValue: 21243)


    // Codes of the Video SDK and the Rooms REST API (Twilio Video's TwilioError table; not in the
    // Voice seed, so not in `all`).
    /// 53000: Error establishing signaling connection
    public static let signalingConnection = ParleyError.Code(rawValue: 53000)
    /// 53100: Room name is invalid
    public static let roomNameInvalid = ParleyError.Code(rawValue: 53100)
    /// 53101: Room name is too long
    public static let roomNameTooLong = ParleyError.Code(rawValue: 53101)
    /// 53105: Room contains too many Participants
    public static let roomMaxParticipantsExceeded = ParleyError.Code(rawValue: 53105)
    /// 53106: Room not found
    public static let roomNotFound = ParleyError.Code(rawValue: 53106)
    /// 53107: MaxParticipants is out of range
    public static let roomMaxParticipantsOutOfRange = ParleyError.Code(rawValue: 53107)
    /// 53108: RoomType is not valid
    public static let roomTypeInvalid = ParleyError.Code(rawValue: 53108)
    /// 53109: Timeout is out of range
    public static let roomTimeoutOutOfRange = ParleyError.Code(rawValue: 53109)
    /// 53110: StatusCallbackMethod is invalid
    public static let roomStatusCallbackMethodInvalid = ParleyError.Code(rawValue: 53110)
    /// 53111: StatusCallback is invalid
    public static let roomStatusCallbackInvalid = ParleyError.Code(rawValue: 53111)
    /// 53112: Status is invalid
    public static let roomStatusInvalid = ParleyError.Code(rawValue: 53112)
    /// 53113: Room exists
    public static let roomExists = ParleyError.Code(rawValue: 53113)
    /// 53114: Room creation parameter(s) incompatible with the Room type
    public static let roomInvalidParameters = ParleyError.Code(rawValue: 53114)
    /// 53117: The subscription operation requested is not supported for the Room type
    public static let roomSubscriptionOperationNotSupported = ParleyError.Code(rawValue: 53117)
    /// 53118: Room completed
    public static let roomCompleted = ParleyError.Code(rawValue: 53118)
    /// 53120: Invalid Recording Rule(s)
    public static let roomInvalidRecordingRule = ParleyError.Code(rawValue: 53120)
    /// 53125: The track kind is not supported by the Room (video in an `AudioOnly` room)
    public static let roomTrackKindNotSupported = ParleyError.Code(rawValue: 53125)
    /// 53200: Participant identity is invalid
    public static let participantIdentityInvalid = ParleyError.Code(rawValue: 53200)
    /// 53201: Participant identity is too long
    public static let participantIdentityTooLong = ParleyError.Code(rawValue: 53201)
    /// 53203: The maximum number of published tracks allowed in a Room has been exceeded
    public static let participantMaxTracksExceeded = ParleyError.Code(rawValue: 53203)
    /// 53204: Participant not found
    public static let participantNotFound = ParleyError.Code(rawValue: 53204)
    /// 53205: The client disconnected because a duplicate identity has connected to the Room
    public static let participantDuplicateIdentity = ParleyError.Code(rawValue: 53205)
    /// 53215: The subscribe rules are invalid
    public static let participantInvalidSubscribeRule = ParleyError.Code(rawValue: 53215)
    /// 53216: The maximum Participant session length has been reached
    public static let participantSessionLengthExceeded = ParleyError.Code(rawValue: 53216)
    /// 53300: Track is invalid
    public static let trackInvalid = ParleyError.Code(rawValue: 53300)
    /// 53301: Track name is invalid
    public static let trackNameInvalid = ParleyError.Code(rawValue: 53301)
    /// 53302: Track name is too long
    public static let trackNameTooLong = ParleyError.Code(rawValue: 53302)
    /// 53304: Track name is duplicated
    public static let trackNameIsDuplicated = ParleyError.Code(rawValue: 53304)
    /// 53305: The server has reached capacity and cannot fulfill this request
    public static let trackServerTrackCapacityReached = ParleyError.Code(rawValue: 53305)

    /// Every code in the seed, in numeric order.
    public static let all: [ParleyError.Code] = [
        .accessTokenInvalid,
        .accessTokenHeaderInvalid,
        .accessTokenIssuerInvalid,
        .accessTokenExpired,
        .accessTokenNotYetValid,
        .accessTokenGrantsInvalid,
        .authFailureCode,
        .expirationTimeExceedsMaxTimeAllowed,
        .accessForbidden,
        .applicationNotFound,
        .connection,
        .callCancelled,
        .transport,
        .malformedRequest,
        .authorization,
        .registration,
        .badRequest,
        .forbidden,
        .notFound,
        .requestTimeout,
        .conflict,
        .upgradeRequired,
        .tooManyRequests,
        .temporarilyUnavailable,
        .callDoesNotExist,
        .addressIncomplete,
        .busyHere,
        .requestTerminated,
        .internalServer,
        .badGateway,
        .serviceUnavailable,
        .gatewayTimeout,
        .dnsResolution,
        .decline,
        .doesNotExistAnywhere,
        .tokenAuthenticationRejected,
        .signalingConnectionDisconnected,
        .mediaClientLocalDescFailed,
        .mediaServerLocalDescFailed,
        .mediaClientRemoteDescFailed,
        .mediaServerRemoteDescFailed,
        .mediaNoSupportedCodec,
        .mediaConnection,
        .mediaDtlsTransportFailed,
    ]
}

extension ParleyError {
    /// Name and description of each seed code.
    static let catalog: [Int: (name: String, description: String)] = [
        20101: ("AccessTokenInvalidError", "Parley was unable to validate your Access Token"),
        20102: ("AccessTokenHeaderInvalidError", "Invalid Access Token header"),
        20103: ("AccessTokenIssuerInvalidError", "Invalid Access Token issuer or subject"),
        20104: ("AccessTokenExpiredError", "Access Token has expired or expiration date is invalid"),
        20105: ("AccessTokenNotYetValidError", "Access Token not yet valid"),
        20106: ("AccessTokenGrantsInvalidError", "Invalid Access Token grants"),
        20151: ("AuthFailureCodeError", "Parley failed to authenticate the client"),
        20157: ("ExpirationTimeExceedsMaxTimeAllowedError", "Expiration Time in the Access Token Exceeds Maximum Time Allowed"),
        20403: ("AccessForbiddenError", "Forbidden. The account lacks permission to access the Parley API"),
        21218: ("ApplicationNotFoundError", "Invalid ApplicationSid"),
        31005: ("ConnectionError", "Connection error"),
        31008: ("CallCancelledError", "Call Cancelled"),
        31009: ("TransportError", "Transport error"),
        31100: ("MalformedRequestError", "Malformed request"),
        31201: ("AuthorizationError", "Authorization error"),
        31301: ("RegistrationError", "Registration failed. Look at [error localizedFailureReason] for details"),
        31400: ("BadRequestError", "Bad Request. The request could not be understood due to malformed syntax"),
        31403: ("ForbiddenError", "Forbidden. The server understood the request, but is refusing to fulfill it"),
        31404: ("NotFoundError", "Not Found. The server has not found anything matching the request"),
        31408: ("RequestTimeoutError", "Request Timeout. A request timeout occurred"),
        31409: ("ConflictError", "Conflict. The request could not be processed because of a conflict in the current state of the resource. Another request may be in progress"),
        31426: ("UpgradeRequiredError", "Upgrade Required. This error is raised when an HTTP 426 response is received. The reason for this is most likely because of an incompatible TLS version. To mitigate this, you may need to upgrade the OS or download a more recent version of the SDK."),
        31429: ("TooManyRequestsError", "Too Many Requests. Too many requests were sent in a given amount of time"),
        31480: ("TemporarilyUnavailableError", "Temporarily Unavailable"),
        31481: ("CallDoesNotExistError", "Call/Transaction Does Not Exist"),
        31484: ("AddressIncompleteError", "The phone number is malformed"),
        31486: ("BusyHereError", "Busy Here"),
        31487: ("RequestTerminatedError", "Request Terminated"),
        31500: ("InternalServerError", "Internal Server Error. The server could not fulfill the request due to some unexpected condition"),
        31502: ("BadGatewayError", "Bad Gateway. The server is acting as a gateway or proxy, and received an invalid response from a downstream server while attempting to fulfill the request"),
        31503: ("ServiceUnavailableError", "Service Unavailable. The server is currently unable to handle the request due to a temporary overloading or maintenance of the server"),
        31504: ("GatewayTimeoutError", "Gateway Timeout. The server, while acting as a gateway or proxy, did not receive a timely response from an upstream server"),
        31530: ("DNSResolutionError", "DNS Resolution Error"),
        31603: ("DeclineError", "Decline"),
        31604: ("DoesNotExistAnywhereError", "Does Not Exist Anywhere"),
        51007: ("TokenAuthenticationRejected", "Token authentication is rejected by authentication service"),
        53001: ("SignalingConnectionDisconnectedError", "Signaling connection disconnected"),
        53400: ("MediaClientLocalDescFailedError", "Client is unable to create or apply a local media description"),
        53401: ("MediaServerLocalDescFailedError", "Server is unable to create or apply a local media description"),
        53402: ("MediaClientRemoteDescFailedError", "Client is unable to apply a remote media description"),
        53403: ("MediaServerRemoteDescFailedError", "Server is unable to apply a remote media description"),
        53404: ("MediaNoSupportedCodecError", "No supported codec"),
        53405: ("MediaConnectionError", "Media connection failed"),
        53407: ("MediaDtlsTransportFailedError", "Media connection failed due to DTLS handshake failure"),
        // REST API codes (see above).
        20001: ("InvalidParameterError", "Invalid parameter"),
        20003: ("AuthenticationError", "Authenticate"),
        20004: ("MethodNotAllowedError", "Method not allowed"),
        20404: ("ResourceNotFoundError", "The requested resource was not found"),
        20500: ("InternalServerError", "Internal server error"),
        21220: ("InvalidCallStateError", "Invalid call state"),
        20009: ("DeleteBeforeCompleteError", "Cannot delete this resource before it is complete"),
        21201: ("ToMissingError", "No 'To' number is specified"),
        21205: ("InvalidCallURLError", "Invalid URL"),
        21211: ("InvalidToError", "Invalid 'To' Phone Number"),
        21213: ("FromMissingError", "No 'From' number is specified"),
        12100: ("TwiMLParseFailureError", "Document parse failure"),
        12200: ("TwiMLSchemaInvalidError", "Schema validation warning"),
        32018: ("TwiMLTooLargeError", "Twiml size exceeded maximum allowed value"),
        // Video SDK and Rooms REST codes (see above).
        53000: ("SignalingConnectionError", "Error establishing signaling connection"),
        53100: ("RoomNameInvalidError", "Room name is invalid"),
        53101: ("RoomNameTooLongError", "Room name is too long"),
        53105: ("RoomMaxParticipantsExceededError", "Room contains too many Participants"),
        53106: ("RoomNotFoundError", "Room not found"),
        53107: ("RoomMaxParticipantsOutOfRangeError", "MaxParticipants is out of range"),
        53108: ("RoomTypeInvalidError", "RoomType is not valid"),
        53109: ("RoomTimeoutOutOfRangeError", "Timeout is out of range"),
        53110: ("RoomStatusCallbackMethodInvalidError", "StatusCallbackMethod is invalid"),
        53111: ("RoomStatusCallbackInvalidError", "StatusCallback is invalid"),
        53112: ("RoomStatusInvalidError", "Status is invalid"),
        53113: ("RoomRoomExistsError", "Room exists"),
        53114: ("RoomInvalidParametersError", "Room creation parameter(s) incompatible with the Room type"),
        53117: ("RoomSubscriptionOperationNotSupportedError", "The subscription operation requested is not supported for the Room type"),
        53118: ("RoomRoomCompletedError", "Room completed"),
        53120: ("RoomInvalidRecordingRuleError", "Invalid Recording Rule(s)"),
        53125: ("RoomTrackKindNotSupportedError", "The track kind is not supported by the Room"),
        53200: ("ParticipantIdentityInvalidError", "Participant identity is invalid"),
        53201: ("ParticipantIdentityTooLongError", "Participant identity is too long"),
        53203: ("ParticipantMaxTracksExceededError", "The maximum number of published tracks allowed in a Room has been exceeded"),
        53204: ("ParticipantNotFoundError", "Participant not found"),
        53205: ("ParticipantDuplicateIdentityError", "The client disconnected because a duplicate identity has connected to the Room"),
        53215: ("ParticipantInvalidSubscribeRuleError", "The subscribe rules are invalid"),
        53216: ("ParticipantSessionLengthExceededError", "The maximum Participant session length has been reached"),
        53300: ("TrackInvalidError", "Track is invalid"),
        53301: ("TrackNameInvalidError", "Track name is invalid"),
        53302: ("TrackNameTooLongError", "Track name is too long"),
        53304: ("TrackNameIsDuplicatedError", "Track name is duplicated"),
        53305: ("TrackServerTrackCapacityReachedError", "The server has reached capacity and cannot fulfill this request"),
    ]
}
