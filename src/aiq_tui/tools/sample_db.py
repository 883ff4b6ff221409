"""The bundled sample database: a small, realistic bookshop generated locally and deterministically.

``ensure_sample_database(path)`` builds it on first use (no network, a fixed random seed, so
every install has the same rows) and leaves a valid existing file alone. It is built in a
temporary file next to the target and renamed into place, so a crash never leaves half a
database behind.

Tables: ``authors``, ``books``, ``customers``, ``orders``, ``order_items``, ``reviews`` —
with foreign keys and indexes on the columns people join and filter on.
"""

from __future__ import annotations

import os
import random
import sqlite3
import tempfile
from datetime import date, timedelta
from pathlib import Path

SCHEMA_VERSION = 1
"""Stored in ``PRAGMA user_version``; a file with another version is rebuilt."""

TABLES = ("authors", "books", "customers", "orders", "order_items", "reviews")

_SCHEMA = """
CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    country TEXT NOT NULL,
    born INTEGER
);
CREATE TABLE books (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    genre TEXT NOT NULL,
    price REAL NOT NULL CHECK (price > 0),
    published_year INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    stock INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL,
    country TEXT NOT NULL,
    joined_on TEXT NOT NULL
);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    ordered_on TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled')),
    total REAL NOT NULL DEFAULT 0
);
CREATE TABLE order_items (
    id INTEGER PRIMARY KEY,
    order_id INTEGER NOT NULL REFERENCES orders(id),
    book_id INTEGER NOT NULL REFERENCES books(id),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    unit_price REAL NOT NULL
);
CREATE TABLE reviews (
    id INTEGER PRIMARY KEY,
    book_id INTEGER NOT NULL REFERENCES books(id),
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    reviewed_on TEXT NOT NULL,
    comment TEXT NOT NULL DEFAULT ''
);
CREATE INDEX idx_books_author ON books(author_id);
CREATE INDEX idx_books_genre ON books(genre);
CREATE INDEX idx_orders_customer ON orders(customer_id);
CREATE INDEX idx_orders_date ON orders(ordered_on);
CREATE INDEX idx_items_order ON order_items(order_id);
CREATE INDEX idx_items_book ON order_items(book_id);
CREATE INDEX idx_reviews_book ON reviews(book_id);
"""

_FIRST = (
    "Ada",
    "Ben",
    "Chloe",
    "Dmitri",
    "Elena",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemi",
    "Luca",
    "Maya",
    "Nils",
    "Olga",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tara",
    "Umar",
    "Vera",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zoe",
)
_LAST = (
    "Andersen",
    "Brooks",
    "Costa",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Haddad",
    "Ito",
    "Jensen",
    "Kowalski",
    "Lopez",
    "Moreau",
    "Nakamura",
    "Okafor",
    "Petrov",
    "Quinn",
    "Rossi",
    "Schmidt",
    "Tanaka",
    "Umarov",
    "Varga",
    "Weber",
    "Yilmaz",
    "Zhang",
)
_PLACES = (
    ("London", "UK"),
    ("Manchester", "UK"),
    ("Paris", "France"),
    ("Lyon", "France"),
    ("Berlin", "Germany"),
    ("Munich", "Germany"),
    ("Madrid", "Spain"),
    ("Rome", "Italy"),
    ("Lisbon", "Portugal"),
    ("Oslo", "Norway"),
    ("Tokyo", "Japan"),
    ("Toronto", "Canada"),
    ("Boston", "USA"),
    ("Austin", "USA"),
    ("Seattle", "USA"),
    ("Lagos", "Nigeria"),
)
_GENRES = (
    "Fiction",
    "Mystery",
    "Science Fiction",
    "Fantasy",
    "History",
    "Biography",
    "Science",
    "Poetry",
    "Travel",
    "Cooking",
)
_ADJECTIVES = (
    "Silent",
    "Hidden",
    "Last",
    "Golden",
    "Broken",
    "Distant",
    "Quiet",
    "Burning",
    "Forgotten",
    "Endless",
    "Northern",
    "Glass",
    "Iron",
    "Paper",
    "Secret",
)
_NOUNS = (
    "River",
    "Garden",
    "Empire",
    "Winter",
    "Library",
    "Harbour",
    "Orchard",
    "Machine",
    "Kingdom",
    "Letters",
    "Atlas",
    "Lantern",
    "Voyage",
    "Kitchen",
    "Stars",
    "Island",
)
_COMMENTS = (
    "Could not put it down.",
    "Slow start, strong ending.",
    "Beautifully written.",
    "Not for me.",
    "A gift that was well received.",
    "Dense but rewarding.",
    "Great for a long train ride.",
    "The characters stayed with me.",
    "",
)


def _generate(connection: sqlite3.Connection) -> None:
    rng = random.Random(20240501)  # fixed: every install gets the same rows
    connection.executescript(_SCHEMA)
    authors = []
    for author_id in range(1, 41):
        _, country = rng.choice(_PLACES)
        authors.append(
            (
                author_id,
                f"{rng.choice(_FIRST)} {rng.choice(_LAST)}",
                country,
                rng.randint(1920, 1990),
            )
        )
    connection.executemany("INSERT INTO authors VALUES (?, ?, ?, ?)", authors)

    books = []
    titles: set[str] = set()
    for book_id in range(1, 151):
        while True:
            title = f"The {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}"
            if rng.random() < 0.3:
                title += f": {rng.choice(_NOUNS)} {rng.choice(('Stories', 'Notes', 'Tales'))}"
            if title not in titles:
                titles.add(title)
                break
        author_id = rng.randint(1, len(authors))
        year = max(authors[author_id - 1][3] + 22, rng.randint(1950, 2024))
        books.append(
            (
                book_id,
                title,
                author_id,
                rng.choice(_GENRES),
                round(rng.randint(5, 44) + 0.99, 2),
                min(year, 2024),
                rng.randint(90, 900),
                rng.randint(0, 60),
            )
        )
    connection.executemany("INSERT INTO books VALUES (?, ?, ?, ?, ?, ?, ?, ?)", books)

    customers = []
    start = date(2019, 1, 1)
    for customer_id in range(1, 201):
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        city, country = rng.choice(_PLACES)
        joined = start + timedelta(days=rng.randint(0, 1500))
        customers.append(
            (
                customer_id,
                f"{first} {last}",
                f"{first.lower()}.{last.lower()}{customer_id}@example.com",
                city,
                country,
                joined.isoformat(),
            )
        )
    connection.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?)", customers)

    orders, items = [], []
    item_id = 0
    for order_id in range(1, 401):
        customer = rng.choice(customers)
        joined = date.fromisoformat(customer[5])
        ordered = joined + timedelta(days=rng.randint(0, 900))
        status = rng.choices(
            ("delivered", "shipped", "pending", "cancelled"), (70, 12, 10, 8)
        )[0]
        total = 0.0
        for book in rng.sample(books, rng.randint(1, 4)):
            item_id += 1
            quantity = rng.choices((1, 2, 3), (80, 15, 5))[0]
            items.append((item_id, order_id, book[0], quantity, book[4]))
            total += quantity * book[4]
        orders.append(
            (order_id, customer[0], ordered.isoformat(), status, round(total, 2))
        )
    connection.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", orders)
    connection.executemany("INSERT INTO order_items VALUES (?, ?, ?, ?, ?)", items)

    reviews = []
    for review_id in range(1, 301):
        book = rng.choice(books)
        customer = rng.choice(customers)
        rating = rng.choices((1, 2, 3, 4, 5), (5, 8, 20, 35, 32))[0]
        reviewed = date.fromisoformat(customer[5]) + timedelta(
            days=rng.randint(10, 1000)
        )
        reviews.append(
            (
                review_id,
                book[0],
                customer[0],
                rating,
                reviewed.isoformat(),
                rng.choice(_COMMENTS),
            )
        )
    connection.executemany("INSERT INTO reviews VALUES (?, ?, ?, ?, ?, ?)", reviews)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def is_valid_sample(path: Path) -> bool:
    """True when ``path`` is a sample database of the current schema with every table filled."""
    if not path.is_file():
        return False
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if (
                connection.execute("PRAGMA user_version").fetchone()[0]
                != SCHEMA_VERSION
            ):
                return False
            for table in TABLES:
                if (
                    connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                    == 0
                ):
                    return False
            return True
        finally:
            connection.close()
    except sqlite3.Error:
        return False


def ensure_sample_database(path: Path) -> Path:
    """The sample database at ``path``, built (atomically) only when missing or invalid."""
    path = Path(path)
    if is_valid_sample(path):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=".sample-", suffix=".db", dir=path.parent)
    os.close(fd)
    try:
        connection = sqlite3.connect(temp)
        try:
            with connection:
                _generate(connection)
        finally:
            connection.close()
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    return path
