import FieldpassDomain
import Foundation
import Hummingbird

/// `/integration/…`: what a company's backend uses to find new user realms and release the
/// waiting devices. Only service accounts, and only for their own environment.
struct IntegrationController: Sendable {
    let store: any FieldpassStore
    /// Bounds the long-polls waiting at once, in all and per environment: each holds a
    /// connection and a task.
    let longPolls: ConcurrencyGate
    /// The backend sees its environment's realm paths under the environment's prefix.
    let realmPrefixes: RealmPrefixes
    /// A draining instance answers its long-polls at once, so that they do not hold its
    /// shutdown up.
    let readiness: Readiness
    /// Whose cursors are whose (see ``FeedCursor``).
    let serviceAccounts: ServiceAccountDirectory

    /// Longest long-poll, so no request holds a connection for long.
    static let maxWaitSeconds = 30

    func addRoutes(to group: RouterGroup<IdentifiedRequestContext>) {
        group.get("realms", use: feed)
        group.get("events", use: lifecycleEvents)
        group.post("realms/initialized", use: markInitialized)
    }

    struct FeedPage: ResponseEncodable {
        struct Realm: Encodable {
            var realmPath: String
            var userID: String
            var email: String
            var initialized: Bool
            var signedIn: Bool
            var createdAt: Date

            enum CodingKeys: String, CodingKey {
                case realmPath = "realm_path"
                case userID = "user_id"
                case email, initialized
                case signedIn = "signed_in"
                case createdAt = "created_at"
            }
        }

        var realms: [Realm]
        var cursor: String

        /// The page of `entries`, whose cursor is past the last of them (or still `after`).
        init(entries: [RealmFeedEntry], after position: Int64, cursors: FeedCursor, prefixes: RealmPrefixes, environmentID: String) throws {
            realms = entries.map {
                .init(
                    realmPath: prefixes.outward($0.realmPath, environmentID: environmentID), userID: $0.userID, email: $0.email,
                    initialized: $0.initialized,
                    signedIn: $0.signedIn, createdAt: $0.createdAt
                )
            }
            cursor = try cursors.encode(entries.last?.feedSeq ?? position, feed: .realms)
        }
    }

    @Sendable func feed(_ request: Request, context: IdentifiedRequestContext) async throws -> FeedPage {
        let cursors = try cursors(context.identity)
        let query = request.uri.queryParameters
        let initialized = try QueryValue.flag(query.get("initialized"), name: "initialized")
        let (limit, wait) = try Self.pageSize(request)
        let position = try await startPosition(cursor: query.get("cursor"), cursors: cursors, feed: .realms) {
            try await store.realmFeedPosition()
        }
        let environmentID = context.identity.environmentID
        let entries = try await longPoll(wait: wait, environmentID: environmentID, signal: store.realmFeed) {
            try await store.realmFeed(environmentID: environmentID, after: position, initialized: initialized, limit: limit)
        }
        return try FeedPage(entries: entries, after: position, cursors: cursors, prefixes: realmPrefixes, environmentID: environmentID)
    }

    /// The calling service account's cursors; 403 for anyone else.
    func cursors(_ identity: Identity) throws -> FeedCursor {
        guard let cursors = serviceAccounts.feedCursor(accountID: try identity.requireServiceAccount()) else {
            throw APIError(.forbidden, AuthErrorCode.forbidden, "This service account can no longer sign in.")
        }
        return cursors
    }

    /// The entries `read` finds, waiting up to `wait` seconds for a first one (``LongPoll``)
    /// in a place of the environment's share of ``longPolls``.
    func longPoll<Entry: Sendable>(
        wait: Int, environmentID: String, signal: ChangeSignal, _ read: () async throws -> [Entry]
    ) async throws -> [Entry] {
        guard wait > 0 else { return try await read() }
        let entries = try await longPolls.withPlace(for: environmentID) {
            try await LongPoll(store: store, readiness: readiness).entries(wait: wait, signal: signal, read)
        }
        guard let entries else { throw LongPoll.busy }
        return entries
    }

    /// A feed page's `limit` (1 to 1000, default 100) and `wait` (seconds, at most
    /// ``maxWaitSeconds``, default 0).
    static func pageSize(_ request: Request) throws -> (limit: Int, wait: Int) {
        let query = request.uri.queryParameters
        let limit = try QueryValue.integer(query.get("limit"), name: "limit", in: 1...1000) ?? 100
        let wait = try QueryValue.integer(query.get("wait"), name: "wait", in: 0...Int.max).map { min($0, maxWaitSeconds) } ?? 0
        return (limit, wait)
    }

    /// Where a page starts: after the cursor's position, or at the feed's beginning.
    func startPosition(cursor: String?, cursors: FeedCursor, feed: FeedCursor.Feed, end: () async throws -> Int64) async throws -> Int64 {
        guard let cursor else { return 0 }
        // A position beyond the feed's end was not issued here (another database) and would
        // silently skip entries written later.
        guard let decoded = cursors.decode(cursor, feed: feed), try await decoded <= end() else {
            throw APIError(.badRequest, IntegrationErrorCode.invalidCursor, "cursor must be a value this server returned.")
        }
        return decoded
    }

    struct InitializedRequest: Decodable {
        var realmPath: String

        enum CodingKeys: String, CodingKey {
            case realmPath = "realm_path"
        }
    }

    struct InitializedResponse: ResponseEncodable {
        var realmPath: String
        var initialized = true
        var devicesNotified: Int

        enum CodingKeys: String, CodingKey {
            case realmPath = "realm_path"
            case initialized
            case devicesNotified = "devices_notified"
        }
    }

    @Sendable func markInitialized(_ request: Request, context: IdentifiedRequestContext) async throws -> InitializedResponse {
        _ = try context.identity.requireServiceAccount()
        let body = try await JSONBody.decode(InitializedRequest.self, from: request, context: context)
        let environmentID = context.identity.environmentID
        guard let path = realmPrefixes.inward(body.realmPath, environmentID: environmentID), RealmPath.personalOwner(path) != nil else {
            let prefix = realmPrefixes.prefix(of: environmentID)
            throw APIError(.badRequest, DirectoryErrorCode.invalidRealmPath, "realm_path must be a user realm, \(prefix)/users/<user id>.")
        }
        guard let marked = try await store.markRealmInitialized(path: path, environmentID: environmentID, now: Date()) else {
            throw DirectoryError.unknownRealm
        }
        FieldpassMetrics.onboarding(.dataReady, count: marked.events.count)
        return InitializedResponse(realmPath: body.realmPath, devicesNotified: marked.events.count)
    }
}
