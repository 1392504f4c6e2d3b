import FieldpassDomain
public import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization
import Tokens
import UnixSignals

/// The signing keys in use, re-read from `tokens.keys_dir` on SIGHUP and every minute,
/// with no restart.
///
/// `KeySchedule` decides which key signs: a new file is published at once and signs after
/// `tokens.key_publish_delay`; a removed file stays published for an access token's
/// lifetime. A folder that cannot be read, or holds a bad key or none, leaves the keys in
/// use as they are and is logged.
public final class KeyRotation: Service, Sendable {
    /// How often the folder is re-read without a SIGHUP.
    static let reloadInterval: Duration = .seconds(60)

    private let directory: URL
    private let publishDelay: TimeInterval
    private let retention: TimeInterval
    private let issuer: String
    private let policy: JWTVerificationPolicy
    private let logger: Logger
    private let state: Mutex<(schedule: KeySchedule, published: PublishedKeys)>

    /// Reads the folder; throws `ConfigurationError` on `tokens.keys_dir` if it holds no usable key.
    public init(settings: TokenSettings, issuer: String, logger: Logger, now: Date = Date()) throws {
        directory = URL(fileURLWithPath: settings.keysDirectory)
        publishDelay = TimeInterval(settings.keyPublishDelay)
        retention = TimeInterval(settings.accessTokenTTL)
        self.issuer = issuer
        policy = JWTVerificationPolicy(issuer: issuer, audience: settings.audience)
        self.logger = logger
        let files: [KeyFile]
        do {
            files = try KeyFile.readAll(in: directory)
        } catch {
            throw ConfigurationError(key: "tokens.keys_dir", "\(error); create a key with `fieldpass keys generate --config <file>`")
        }
        let schedule = KeySchedule(files: files, publishDelay: publishDelay)
        state = Mutex((schedule, try PublishedKeys(schedule: schedule, issuer: issuer, policy: policy, now: now)))
        warnIfReadableByOthers(files)
    }

    /// The keys in use at `now`, moved on first if the schedule has changed since.
    func published(now: Date = Date()) -> PublishedKeys {
        state.withLock { state in
            if let until = state.published.validUntil, now >= until,
                let next = try? PublishedKeys(schedule: state.schedule, issuer: issuer, policy: policy, now: now)
            {
                state.published = next
            }
            return state.published
        }
    }

    /// Each published key's part in the schedule at `now`, as the console shows it.
    func scheduleEntries(now: Date = Date()) -> [KeySchedule.Entry] {
        state.withLock { $0.schedule.entries(at: now) }
    }

    /// Re-reads the folder. Keys whose files are gone stay published for `retention`.
    public func reload(now: Date = Date()) {
        let files: [KeyFile]
        do {
            files = try KeyFile.readAll(in: directory)
        } catch {
            logger.error("Signing keys not reloaded; the keys in use stay", metadata: ["reason": "\(error)"])
            return
        }
        let (before, after) = state.withLock { state in
            let before = state.published.ring
            let schedule = KeySchedule(files: files, publishDelay: publishDelay)
                .carryingRemovals(from: state.schedule, now: now, retention: retention)
            guard let published = try? PublishedKeys(schedule: schedule, issuer: issuer, policy: policy, now: now) else {
                return (before, before)
            }
            state = (schedule, published)
            return (before, published.ring)
        }
        let added = Set(after.verificationKeys.map(\.kid)).subtracting(before.verificationKeys.map(\.kid))
        warnIfReadableByOthers(files.filter { added.contains($0.key.kid) })
        if after.signingKey.kid != before.signingKey.kid || after.verificationKeys.map(\.kid) != before.verificationKeys.map(\.kid) {
            logger.info(
                "Signing keys reloaded",
                metadata: [
                    "signing_kid": "\(after.signingKey.kid)",
                    "published_kids": "\(after.verificationKeys.map(\.kid).joined(separator: ","))",
                ])
        }
    }

    /// Reloads on SIGHUP and every minute until graceful shutdown.
    public func run() async throws {
        let ticker = Ticker()
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in hangups { ticker.wake() }
            }
            await ticker.run(every: Self.reloadInterval) { reload() }
            group.cancelAll()
        }
    }

    /// A private key others may read is a warning naming its file, not a refusal to start.
    private func warnIfReadableByOthers(_ files: [KeyFile]) {
        for file in files where file.readableByOthers {
            logger.warning(
                "Private key file is readable by group or others; make it 0600",
                metadata: [
                    "file": "\(directory.appendingPathComponent(file.name).path)"
                ])
        }
    }
}
