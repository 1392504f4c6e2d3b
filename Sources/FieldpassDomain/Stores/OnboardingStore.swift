public import Foundation

/// Everything Fieldpass keeps: onboarding, the directory and credentials, and the signals
/// that tell readers about changes. SQLite is the default; PostgreSQL serves several instances.
public typealias FieldpassStore = OnboardingStore & DirectoryStore & CredentialStore & ScimStore & SharedDeviceStore & BadgeStore
    & StoreChanges
    & LifecycleEventStore
    & ConsoleStore

/// Onboarding sessions and their events.
///
/// Every method that changes more than one row does so in one transaction, so a crash or
/// a concurrent writer (the CLI, another instance) never sees half a change.
public protocol OnboardingStore: Sendable {
    /// Creates the user, their personal realm and the device if absent, and a pending session.
    func registerDevice(_ registration: DeviceRegistration) async throws -> OnboardingSession

    /// The confirmation page's view of a session, by its login id.
    func confirmation(loginID: String, now: Date) async throws -> DeviceConfirmation?

    /// Marks the session confirmed when `csrfToken` is its own and it is still pending,
    /// unconfirmed and unexpired: the login link works once. `browserBinding` is the hash of
    /// the cookie that ties the rest of the sign-in to this browser.
    func confirmDevice(loginID: String, csrfToken: String, browserBinding: String, now: Date) async throws -> ConfirmationOutcome

    /// Takes the session that `state` belongs to and marks the state used, atomically.
    /// Returns `nil` when the state is unknown, already used, its session has expired, or
    /// it needs a confirmation it never had.
    func consumeState(_ state: String, now: Date) async throws -> OnboardingSession?

    /// A callback that brings the IdP's refusal: takes the session that `state` belongs to, as
    /// ``consumeState(_:now:)`` does, and fails it with the failure `failure` decides for it,
    /// as ``failLogin(sessionID:error:description:audited:now:)`` does, in one transaction.
    /// Nothing is exchanged with the IdP, so one commit does both. Returns `nil`, changing
    /// nothing, where ``consumeState(_:now:)`` would.
    func refuseState(
        _ state: String, now: Date, failure: @escaping @Sendable (OnboardingSession) -> LoginFailure
    ) async throws -> RefusedSignIn?

    /// Where the browser returns to the app for an unused `state` whose session expired
    /// before the sign-in came back; `nil` for any other state. Changes nothing.
    func expiredAppReturn(state: String, now: Date) async throws -> AppReturn?

    /// Stores the refresh token hash and the token, `realm_initialized` and, if the realm is
    /// initialized already, `data_ready` events. The device's earlier live refresh token (the
    /// same installation's previous sign-in) is revoked: the new one replaces it. Returns the
    /// events stored.
    func completeLogin(_ login: CompletedLogin, now: Date) async throws -> [StoredEvent]

    /// Stores `login_failed` and fails the session; when `audited`, the refusal goes into the
    /// audit log too, with actor `browser` and action `login.<error>` (a refused attack).
    func failLogin(sessionID: String, error: String, description: String, audited: Bool, now: Date) async throws -> [StoredEvent]

    /// The session with this id, if it has not been swept.
    func session(id: String) async throws -> OnboardingSession?

    /// A session's stored events with `seq > after`, in order.
    func events(sessionID: String, after: Int) async throws -> [StoredEvent]

    /// Events of all sessions with a row id above `id`, in row order: the cross-process feed.
    /// A read that finds none placed places what committed and reads again (PostgreSQL places
    /// after commit; SQLite's rows are placed as they are written).
    func events(afterRowID id: Int64, limit: Int) async throws -> [StoredEvent]

    /// The feed after `id` as placed so far, placing nothing: what a reader woken by a
    /// commit's announcement reads, since the announcing instance placed the rows first.
    func placedEvents(afterRowID id: Int64, limit: Int) async throws -> [StoredEvent]

    /// The highest event row id so far (0 when none).
    func latestEventRowID() async throws -> Int64

    /// The device asked for the session's events after `after`: when that acknowledges its
    /// terminal event (``SessionRules/acknowledges(after:lastSeq:status:)``), the session ends
    /// and its token event is purged. Returns whether it ended now.
    func acknowledgeEvents(sessionID: String, after: Int, now: Date) async throws -> Bool

    /// Expires every unfinished session past its expiry (storing `session_expired`), ends the
    /// sessions past their expiry whose last event was stored before `deliveredBefore` (the
    /// grace of a device that never acknowledged) and purges their token events, deletes
    /// sessions expired before `deleteBefore`, and forgets tokens that no longer matter
    /// (``TokenPurge``). Returns the events stored.
    func sweepSessions(now: Date, deliveredBefore: Date, deleteBefore: Date) async throws -> [StoredEvent]

    /// Deletes the users who never completed a sign-in and last registered before
    /// `registeredBefore` (``UnconfirmedUsers``), with their personal realm, devices,
    /// sessions and any grant on that realm. Returns how many users went.
    func removeUnconfirmedUsers(registeredBefore: Date) async throws -> Int

    /// Marks a realm initialized and stores `data_ready` for every session of its user that
    /// waits for it. Returns `nil` for an unknown realm (or one outside `environmentID` when
    /// given), else whether it was initialized already and the events stored.
    func markRealmInitialized(path: String, environmentID: String?, now: Date) async throws -> RealmInitialization?
}
