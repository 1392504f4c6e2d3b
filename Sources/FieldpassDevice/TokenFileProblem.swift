/// Why ``FileTokenStore`` refused its file: each means that someone other than the device's
/// user may have put it there, may change it, or may have read the tokens in it.
public enum TokenFileProblem: Sendable, Equatable {
    /// A symbolic link, which could point the store at a file someone else chose.
    case symbolicLink
    /// Not a regular file: a folder, a FIFO, a device.
    case notARegularFile
    /// Owned by another user, who could have planted it and can still change it.
    case ownedByAnotherUser
    /// Its mode lets the group or others at it (the store makes files of mode 0600).
    case openToOthers
}
