/**
 * Tools people ask an assistant for that most catalogs do not hold: weather, mail, calendars, music, rides, news…
 * A request for one, phrased as natural phrasing says requests for the catalog's own tools ("Could you set the
 * reminder at 21:15 about: renew my passport?"), reads like any tool request yet no tool of the catalog answers it:
 * the shape of a request sent beside functions that do something else, which errands and trivia (./far-asks.ts)
 * do not have. Each carries the key words of the tools that could serve it; a catalog that
 * mentions one may well be such a tool, and the request is not an unsatisfiable ask there.
 */
import type { CatalogTool } from '../../catalog/types.js';

type Props = Record<string, Record<string, unknown>>;

const tool = (name: string, description: string, properties: Props, required: string[]): CatalogTool => ({
  id: `other/${name}`,
  server: 'other',
  name,
  description,
  inputSchema: { type: 'object', properties, required },
  scopes: [],
});

const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string', description, ...extra });
const int = (description: string, minimum: number, maximum: number) => ({
  type: 'integer',
  description,
  minimum,
  maximum,
});
const oneOf = (description: string, values: string[]) => ({ type: 'string', description, enum: values });
const date = (description: string) => ({ type: 'string', description, format: 'date' });
const clock = (description: string) => ({ type: 'string', description, pattern: '^([01][0-9]|2[0-3]):(00|15|30|45)$' });

const CITIES = ['Lisbon', 'Chicago', 'Osaka', 'Nairobi', 'Toronto', 'Melbourne', 'Lyon', 'Denver', 'Seoul', 'Dublin'];
const LANGUAGES = ['French', 'Spanish', 'German', 'Japanese', 'Portuguese', 'Italian', 'Korean'];
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CAD', 'AUD', 'CHF'];
const city = (description: string) => oneOf(description, CITIES);

export const OTHER_TOOLS: Array<[keywords: string[], tool: CatalogTool]> = [
  [
    ['weather', 'forecast', 'temperature', 'rain'],
    tool(
      'get_weather_forecast',
      'Get the weather forecast for a city.',
      { city: city('City'), days: int('Days ahead', 1, 7) },
      ['city'],
    ),
  ],
  [
    ['email', 'mail', 'inbox'],
    tool(
      'send_email',
      'Send an email.',
      {
        to: str('Recipient address', { format: 'email' }),
        subject: oneOf('Subject', ['Quarterly numbers', 'Friday offsite', 'Invoice question', 'Welcome aboard']),
      },
      ['to', 'subject'],
    ),
  ],
  [
    ['calendar', 'event', 'meeting', 'schedul', 'appointment'],
    tool(
      'create_calendar_event',
      'Add an event to my calendar.',
      {
        title: oneOf('Event title', ['Dentist', 'Team lunch', '1:1 with Priya', 'Yoga class', 'Budget review']),
        date: date('Day of the event'),
        start: clock('Start time'),
      },
      ['title', 'date'],
    ),
  ],
  [
    ['remind', 'reminder', 'todo', 'task'],
    tool(
      'set_reminder',
      'Remind me of something at a time.',
      {
        about: oneOf('What to be reminded of', ['call the landlord', 'renew my passport', 'water the plants']),
        at: clock('When'),
      },
      ['about', 'at'],
    ),
  ],
  [
    ['music', 'song', 'playlist', 'album', 'artist', 'spotify', 'play'],
    tool(
      'play_music',
      'Play a song or an artist.',
      { artist: oneOf('Artist', ['Adele', 'Miles Davis', 'Daft Punk', 'Taylor Swift', 'Radiohead']) },
      ['artist'],
    ),
  ],
  [
    ['stock', 'ticker', 'share', 'market', 'nasdaq', 'equity', 'portfolio'],
    tool(
      'get_stock_quote',
      'Get the latest price of a stock.',
      { ticker: oneOf('Ticker symbol', ['AAPL', 'MSFT', 'TSLA', 'NVDA', 'AMZN']) },
      ['ticker'],
    ),
  ],
  [
    ['translat', 'language'],
    tool(
      'translate_text',
      'Translate text into another language.',
      {
        text: oneOf('Text', ['Where is the train station?', 'Thank you for your help', 'See you tomorrow']),
        target_language: oneOf('Target language', LANGUAGES),
      },
      ['text', 'target_language'],
    ),
  ],
  [
    ['direction', 'route', 'navigat', 'map', 'distance', 'commute'],
    tool(
      'get_directions',
      'Get directions from one place to another.',
      {
        destination: oneOf('Where to', ['the central station', 'the airport', 'Union Square', 'the nearest pharmacy']),
        mode: oneOf('How', ['driving', 'walking', 'transit', 'cycling']),
      },
      ['destination'],
    ),
  ],
  [
    ['ride', 'taxi', 'uber', 'driver', 'transport'],
    tool(
      'request_ride',
      'Request a ride.',
      { pickup: oneOf('Pickup', ['home', 'the office', 'the hotel']), seats: int('Seats', 1, 4) },
      ['pickup'],
    ),
  ],
  [
    ['food', 'deliver', 'restaurant', 'pizza', 'menu', 'meal'],
    tool(
      'order_food',
      'Order food for delivery.',
      { dish: oneOf('Dish', ['a margherita pizza', 'pad thai', 'two burritos', 'sushi for two']) },
      ['dish'],
    ),
  ],
  [
    ['flight', 'airline', 'airport', 'travel', 'trip'],
    tool('search_flights', 'Search for flights.', { to: city('Destination city'), departure: date('Departure day') }, [
      'to',
      'departure',
    ]),
  ],
  [
    ['hotel', 'room', 'lodging', 'accommodation', 'booking', 'stay'],
    tool('book_hotel', 'Book a hotel room.', { city: city('City'), nights: int('Nights', 1, 6) }, ['city', 'nights']),
  ],
  [
    ['currenc', 'exchange', 'money', 'forex'],
    tool(
      'convert_currency',
      'Convert an amount between currencies.',
      { amount: int('Amount', 5, 2000), from: oneOf('From', CURRENCIES), to: oneOf('To', CURRENCIES) },
      ['amount', 'from', 'to'],
    ),
  ],
  [
    ['timer', 'alarm', 'countdown', 'clock'],
    tool('set_timer', 'Start a timer.', { minutes: int('Minutes', 1, 90) }, ['minutes']),
  ],
  [
    ['light', 'lamp', 'home', 'device', 'thermostat'],
    tool(
      'switch_lights',
      'Turn the lights in a room on or off.',
      { room: oneOf('Room', ['kitchen', 'living room', 'bedroom', 'hallway']), on: { type: 'boolean' } },
      ['room', 'on'],
    ),
  ],
  [
    ['package', 'parcel', 'shipment', 'shipping', 'track', 'deliver'],
    tool('track_package', 'Where is my package?', { carrier: oneOf('Carrier', ['UPS', 'FedEx', 'DHL', 'USPS']) }, [
      'carrier',
    ]),
  ],
  [
    ['news', 'headline', 'article'],
    tool(
      'get_news',
      'Get the latest news on a topic.',
      { topic: oneOf('Topic', ['the election', 'electric cars', 'the Champions League', 'interest rates']) },
      ['topic'],
    ),
  ],
  [
    ['sport', 'score', 'team', 'game', 'league', 'match', 'player'],
    tool(
      'get_game_score',
      'Get the score of a team’s latest game.',
      { team: oneOf('Team', ['the Lakers', 'Arsenal', 'the Yankees', 'the Chiefs']) },
      ['team'],
    ),
  ],
  [
    ['movie', 'film', 'cinema', 'showtime', 'theater', 'theatre'],
    tool(
      'find_showtimes',
      'Find where and when a movie is showing.',
      { movie: oneOf('Movie', ['Dune', 'Oppenheimer', 'Inside Out 2', 'The Batman']), city: city('City') },
      ['movie'],
    ),
  ],
  [
    ['definition', 'dictionary', 'defin', 'synonym', 'word'],
    tool(
      'define_word',
      'Look up what a word means.',
      { word: oneOf('Word', ['ephemeral', 'ubiquitous', 'serendipity', 'laconic']) },
      ['word'],
    ),
  ],
  [
    ['payment', 'pay', 'transfer', 'venmo', 'wallet', 'bank'],
    tool(
      'send_money',
      'Send money to a friend.',
      { friend: oneOf('Who', ['Alex', 'Maria', 'Sam', 'Priya']), amount: int('Amount in dollars', 5, 300) },
      ['friend', 'amount'],
    ),
  ],
  [
    ['social', 'tweet', 'twitter', 'linkedin', 'facebook', 'instagram', 'post'],
    tool(
      'post_status',
      'Post a status update to my social feed.',
      { text: oneOf('Status', ['Back from a great week in Lisbon!', 'We are hiring', 'Happy Friday everyone']) },
      ['text'],
    ),
  ],
  [
    ['shopping', 'grocer', 'cart', 'basket', 'store'],
    tool(
      'add_to_shopping_list',
      'Add an item to my shopping list.',
      { item: oneOf('Item', ['oat milk', 'eggs', 'coffee beans', 'dish soap']), quantity: int('How many', 1, 6) },
      ['item'],
    ),
  ],
  [
    ['workout', 'exercise', 'fitness', 'run', 'step'],
    tool(
      'log_workout',
      'Log a workout.',
      { activity: oneOf('Activity', ['run', 'swim', 'bike ride', 'yoga']), minutes: int('Minutes', 10, 120) },
      ['activity', 'minutes'],
    ),
  ],
  [
    ['recipe', 'cook', 'ingredient', 'bake'],
    tool(
      'find_recipe',
      'Find a recipe that uses an ingredient.',
      { ingredient: oneOf('Ingredient', ['chickpeas', 'salmon', 'zucchini', 'leftover rice']) },
      ['ingredient'],
    ),
  ],
  [
    ['sms', 'text', 'message', 'phone', 'whatsapp', 'contact'],
    tool(
      'send_text',
      'Text someone.',
      {
        contact: oneOf('Who', ['Mom', 'Jordan', 'my landlord', 'the babysitter']),
        message: oneOf('Message', ['running 10 minutes late', 'call me when you can', 'dinner is at 7']),
      },
      ['contact', 'message'],
    ),
  ],
];
