import type { Rng } from './rng.js';

/** Word lists for plausible, deterministic names. */
export const FIRST_NAMES = ['James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth', 'William', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Carlos', 'Karen', 'Wei', 'Aiko', 'Priya', 'Arjun', 'Fatima', 'Omar', 'Ingrid', 'Lars', 'Sofia', 'Mateo', 'Chloe', 'Hugo', 'Amara', 'Kwame', 'Yuki', 'Elena', 'Dmitri', 'Noor', 'Luca', 'Grace'] as const;
export const LAST_NAMES = ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez', 'Lopez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', 'Chen', 'Tanaka', 'Patel', 'Singh', 'Okafor', 'Haddad', 'Larsen', 'Nielsen', 'Rossi', 'Dubois', 'Schmidt', 'Kowalski', 'Novak', 'Ivanova', 'Kim', 'Nguyen', 'Silva', 'Costa', 'Murphy', "O'Brien"] as const;
const PREFIX = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Wonka', 'Tyrell', 'Cyberdyne', 'Soylent', 'Hooli', 'Vandelay', 'Pied Piper', 'Aperture', 'Black Mesa', 'Massive Dynamic', 'Oscorp', 'Gringotts', 'Nakatomi', 'Dunder', 'Blue Sun', 'Monarch', 'Oceanic', 'Virtucon', 'Zorg', 'Prestige', 'Sterling', 'Northwind', 'Contoso', 'Fabrikam', 'Litware', 'Tailspin', 'Wingtip', 'Adventure', 'Proseware', 'Lucerne', 'Alpine', 'Coho', 'Fourth Coffee', 'Margie'];
const MIDDLE = ['', '', '', ' Global', ' Systems', ' Industries', ' Labs', ' Logistics', ' Health', ' Energy', ' Capital', ' Foods', ' Media', ' Robotics', ' Analytics', ' Motors'];
const SUFFIX = [' Inc', ' LLC', ' Ltd', ' GmbH', ' SA', ' plc', ' Corp', ' Co', ' AG', ' BV'];
export const CITIES: ReadonlyArray<readonly [string, string]> = [
  ['New York', 'United States'], ['San Francisco', 'United States'], ['Chicago', 'United States'], ['Austin', 'United States'], ['Seattle', 'United States'],
  ['Toronto', 'Canada'], ['Vancouver', 'Canada'], ['London', 'United Kingdom'], ['Manchester', 'United Kingdom'], ['Berlin', 'Germany'], ['Munich', 'Germany'],
  ['Paris', 'France'], ['Lyon', 'France'], ['Madrid', 'Spain'], ['Amsterdam', 'Netherlands'], ['Milan', 'Italy'], ['Tokyo', 'Japan'], ['Osaka', 'Japan'],
  ['Zurich', 'Switzerland'], ['Dublin', 'Ireland'],
];
export const COUNTRY_CURRENCY: Record<string, string> = {
  'United States': 'USD', Canada: 'CAD', 'United Kingdom': 'GBP', Germany: 'EUR', France: 'EUR', Spain: 'EUR', Netherlands: 'EUR', Italy: 'EUR',
  Japan: 'JPY', Switzerland: 'EUR', Ireland: 'EUR',
};

/** Unique company names: the generator keeps a set and retries with a numbered suffix on collision. */
export function companyName(rng: Rng, taken: Set<string>): string {
  for (let attempt = 0; ; attempt++) {
    const base = `${rng.pick(PREFIX)}${rng.pick(MIDDLE)}${rng.pick(SUFFIX)}`;
    const name = attempt < 5 ? base : `${base} ${attempt}`;
    if (!taken.has(name.toLowerCase())) {
      taken.add(name.toLowerCase());
      return name;
    }
  }
}

export function personName(rng: Rng): { first: string; last: string } {
  return { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
}

export function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '');
}
