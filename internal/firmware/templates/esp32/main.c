/* Firmware for {{.MCU.Refdes}} ({{.MCU.Value}}), scaffolded by copperhead.
 * Happy path: {{.HappyPath}}.
 * Pins come from pins.h, generated from {{.Source}}: never hard-code one here.
 */
#include "driver/gpio.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"

#include "pins.h"

void app_main(void)
{
#if APP_HAS_LED
	gpio_reset_pin(APP_LED_GPIO);
	gpio_set_direction(APP_LED_GPIO, GPIO_MODE_OUTPUT);
#endif
#if APP_HAS_BUTTON
	/* ASSUMED: the button pulls its pin to ground. */
	gpio_reset_pin(APP_BUTTON_GPIO);
	gpio_set_direction(APP_BUTTON_GPIO, GPIO_MODE_INPUT);
	gpio_set_pull_mode(APP_BUTTON_GPIO, GPIO_PULLUP_ONLY);
	int led = 0, last = 1;
	for (;;) {
		int now = gpio_get_level(APP_BUTTON_GPIO);
		if (last && !now) {
			led = !led; /* toggle on each press */
			gpio_set_level(APP_LED_GPIO, led);
		}
		last = now;
		vTaskDelay(pdMS_TO_TICKS(20)); /* debounce */
	}
#elif APP_HAS_LED
	for (int led = 0;; led = !led) {
		gpio_set_level(APP_LED_GPIO, led);
		vTaskDelay(pdMS_TO_TICKS(500));
	}
#endif
}
