extension Array {
    /// Appends `other`, taking its storage instead when this array is empty: the lists handed
    /// along once a frame (frame callbacks, presentation feedback) are then never copied, where
    /// appending to an empty array allocates a new one. Inlinable: the compositor calls it every
    /// frame, and unspecialized it looked the array's witness tables up at run time.
    @inlinable
    public mutating func append(adopting other: [Element]) {
        if isEmpty {
            self = other
        } else if !other.isEmpty {
            append(contentsOf: other)
        }
    }

    /// Removes every element and keeps the storage, for lists emptied and filled again every
    /// frame. Element by element: `removeAll(keepingCapacity:)` goes through a generic
    /// `replaceSubrange`, about 140 instructions for a list of one.
    @inlinable
    public mutating func removeAllKeepingCapacity() {
        while !isEmpty { removeLast() }
    }
}
